// End-to-end checks of the rdmasim command line on bad input: every class of
// mistake must end with exit code 2 and one message naming the file, the line,
// the key and what was expected, never with a crash, an uncaught exception or
// a signal. Also checks what a good run and an unfinished run write.
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "config/shipped_path.h"
#include "fabric/profiles.h"

extern char** environ;

namespace rdmasim {
namespace {

namespace fs = std::filesystem;

struct CliResult {
  int exit_code = -1;  // -1 when the process did not exit normally
  int signal = 0;      // the terminating signal, 0 when it exited
  std::string out;
  std::string err;
};

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
  ASSERT_TRUE(out.good()) << "cannot write " << p;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : text) {
    if (c == sep) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  return parts;
}

// `text` with the single occurrence of `from` replaced by `to`.
std::string edit(const std::string& text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "'" << from << "' not in the scenario";
  if (at == std::string::npos) return text;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << "'" << from << "' occurs twice";
  return text.substr(0, at) + to + text.substr(at + from.size());
}

// A tiny scenario that runs in milliseconds. Line numbers in the tests below
// refer to this text (line 1 is "name: tiny").
constexpr const char* kGood = R"(name: tiny
duration: 1ms
topology:
  type: star
  hosts: 3
  link:
    rate: 100Gbps
    delay: 1us
workload:
  - type: incast
    senders: 2
    receiver: 0
    size: 64KiB
)";

// One 64 KiB flow on a star of three hosts; the tests below append the key
// under test after it, so its line numbers are theirs (line 5 onwards).
constexpr const char* kOneFlow = R"(duration: 1ms
topology: {type: star, hosts: 3}
workload:
  - {type: flow, src: 0, dst: 1, size: 64KiB}
)";

// Waits until process `pid` catches `sig` (its handler is installed, bit
// sig-1 of SigCgt in /proc/PID/status), so that a slow start, a sanitizer
// build on a busy machine, cannot let the signal's default action end it
// before main() runs. False if the process ended first or never caught it.
bool wait_until_caught(pid_t pid, int sig) {
  const std::string status_path = "/proc/" + std::to_string(pid) + "/status";
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < give_up) {
    std::ifstream status(status_path);
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("State:", 0) == 0 && line.find('Z') != std::string::npos) return false;
      if (line.rfind("SigCgt:", 0) == 0) {
        const unsigned long long caught = std::stoull(line.substr(7), nullptr, 16);
        if (((caught >> (sig - 1)) & 1ULL) != 0) return true;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "rdmasim_cli_XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr) << std::strerror(errno);
    dir_ = tmpl;
    scenario_ = (dir_ / "scenario.yaml").string();
  }

  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // Runs the real binary with `args`, stdout and stderr captured in files.
  // `stop_signal`: sent `after_ms` after the process has installed its
  // handler for it (or after the start, when not `after_handler`), as a user
  // or a batch scheduler would.
  // `env`: NAME=value settings on top of this process's environment, less any
  // RDMASIM_PROGRESS_INTERVAL it has (tests set it when they mean to).
  CliResult run_cli(const std::vector<std::string>& args, int stop_signal = 0, int after_ms = 0,
                    const std::vector<std::string>& env = {}, bool after_handler = true) {
    CliResult r;
    const std::string out_path = (dir_ / "cli.stdout").string();
    const std::string err_path = (dir_ / "cli.stderr").string();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    std::vector<std::string> argv_s = {RDMASIM_BINARY};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    argv.reserve(argv_s.size() + 1);
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_s = env;
    for (char** e = environ; *e != nullptr; ++e)
      if (std::strncmp(*e, "RDMASIM_PROGRESS_INTERVAL=", 26) != 0) env_s.emplace_back(*e);
    std::vector<char*> envp;
    envp.reserve(env_s.size() + 1);
    for (auto& e : env_s) envp.push_back(e.data());
    envp.push_back(nullptr);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, RDMASIM_BINARY, &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    EXPECT_EQ(rc, 0) << "cannot start " << RDMASIM_BINARY << ": " << std::strerror(rc);
    if (rc != 0) return r;
    if (stop_signal != 0) {
      if (after_handler) {
        EXPECT_TRUE(wait_until_caught(pid, stop_signal)) << "the process never caught signal " << stop_signal;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(after_ms));
      ::kill(pid, stop_signal);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
      if (errno != EINTR) {
        ADD_FAILURE() << "waitpid: " << std::strerror(errno);
        return r;
      }
    }
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
    r.out = read_text(out_path);
    r.err = read_text(err_path);
    return r;
  }

  // Writes `yaml` as the scenario and runs it (plus `extra` arguments), with
  // outputs directed into the temp dir.
  CliResult run_scenario(const std::string& yaml, const std::vector<std::string>& extra = {}) {
    write_text(scenario_, yaml);
    std::vector<std::string> args = {"run", scenario_, "-q", "-o", (dir_ / "out").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(args);
  }

  // The one message a bad input must produce, prefixed by the scenario path.
  std::string at(const std::string& location_and_message) const {
    return "error: " + scenario_ + ":" + location_and_message + "\n";
  }

  fs::path dir_;
  std::string scenario_;
};

// Whatever went wrong, the process must have ended on its own terms.
void expect_clean_exit(const CliResult& r) {
  EXPECT_EQ(r.signal, 0) << "killed by signal " << r.signal << "; stderr:\n" << r.err;
  for (const char* bad : {"terminate called", "what():", "Aborted", "Segmentation fault", "core dumped",
                          "AddressSanitizer", "runtime error:", "#0 ", "#1 ", "Stack trace", "stack trace"}) {
    EXPECT_EQ(r.err.find(bad), std::string::npos) << "stderr contains '" << bad << "':\n" << r.err;
    EXPECT_EQ(r.out.find(bad), std::string::npos) << "stdout contains '" << bad << "':\n" << r.out;
  }
}

void expect_bad_input(const CliResult& r, const std::string& expected_stderr) {
  expect_clean_exit(r);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, expected_stderr);
  EXPECT_EQ(r.out, "");
}

// --- The good path ------------------------------------------------------------------------------------

TEST_F(CliTest, GoodScenarioWritesAllOutputsAtomically) {
  const CliResult r = run_scenario(kGood);
  expect_clean_exit(r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("flows      2 completed of 2\n"), std::string::npos) << r.out;

  const fs::path out = dir_ / "out";
  ASSERT_TRUE(fs::is_regular_file(out / "results.json"));
  ASSERT_TRUE(fs::is_regular_file(out / "flows.csv"));
  ASSERT_TRUE(fs::is_regular_file(out / "ports.csv"));
  for (const auto& entry : fs::directory_iterator(out)) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos)
        << "leftover temporary file " << entry.path();
  }
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(out)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"counters.txt", "flows.csv", "ports.csv", "results.json"}));

  const std::vector<std::string> lines = split(read_text(out / "flows.csv"), '\n');
  ASSERT_EQ(lines.size(), 4u);  // header, two flows, the empty piece after the final newline
  EXPECT_EQ(lines[0].rfind("id,src,dst,size_bytes,start_ns,fct_ns,ideal_fct_ns,slowdown", 0), 0u) << lines[0];
  EXPECT_EQ(lines[3], "");
  for (int i = 1; i <= 2; ++i) {
    const std::vector<std::string> f = split(lines[i], ',');
    ASSERT_GE(f.size(), 8u) << lines[i];
    EXPECT_EQ(f[0], std::to_string(i - 1));
    EXPECT_EQ(f[2], "0");      // dst: the incast receiver
    EXPECT_EQ(f[3], "65536");  // size_bytes
    EXPECT_EQ(f[4], "0.000");  // start_ns
    EXPECT_NE(f[5], "");       // fct_ns: finished
    EXPECT_NE(f[7], "");       // slowdown
    EXPECT_GE(std::stod(f[7]), 1.0);
  }

  const auto results = nlohmann::json::parse(read_text(out / "results.json"));
  EXPECT_EQ(results["flows"]["total"], 2);
  EXPECT_EQ(results["flows"]["completed"], 2);
  EXPECT_EQ(results["flows"]["unfinished"], 0);
  EXPECT_EQ(results["topology"]["hosts"], 3);
  EXPECT_EQ(results["invariants"]["ok"], true);

  const std::vector<std::string> ports = split(read_text(out / "ports.csv"), '\n');
  EXPECT_EQ(ports[0].rfind("node,port,peer,rate_gbps,", 0), 0u) << ports[0];
  EXPECT_EQ(ports.size(), 1u + 6u + 1u);  // header, 3 host ports + 3 switch ports, final newline
}

TEST_F(CliTest, TooShortDurationLeavesFctEmptyAndSucceeds) {
  const CliResult r = run_scenario(edit(kGood, "duration: 1ms", "duration: 1us"));
  expect_clean_exit(r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("flows      0 completed of 2\n"), std::string::npos) << r.out;
  const std::vector<std::string> lines = split(read_text(dir_ / "out" / "flows.csv"), '\n');
  ASSERT_EQ(lines.size(), 4u);
  for (int i = 1; i <= 2; ++i) {
    const std::vector<std::string> f = split(lines[i], ',');
    ASSERT_GE(f.size(), 8u) << lines[i];
    EXPECT_EQ(f[3], "65536");
    EXPECT_EQ(f[5], "") << "fct_ns of an unfinished flow must be empty: " << lines[i];
    EXPECT_EQ(f[7], "") << "slowdown of an unfinished flow must be empty: " << lines[i];
  }
  const auto results = nlohmann::json::parse(read_text(dir_ / "out" / "results.json"));
  EXPECT_EQ(results["flows"]["completed"], 0);
  EXPECT_EQ(results["flows"]["unfinished"], 2);
  EXPECT_EQ(results["run"]["all_flows_completed"], false);
  EXPECT_EQ(results["run"]["simulated_end"], "1us");
}

// A flows file saved in the output folder under an output's name (ports.csv)
// was replaced by the run's own ports.csv, so the next run read that as its
// flow list: the run is refused before it starts and the file is untouched.
TEST_F(CliTest, InputInTheOutputFolderUnderAnOutputNameIsRefused) {
  const fs::path out = dir_ / "out";
  fs::create_directories(out);
  const std::string flows = "1\n0 1 3 100 1000 2.0\n";
  write_text(out / "ports.csv", flows);
  write_text(scenario_, edit(kGood, "  - type: incast\n    senders: 2\n    receiver: 0\n    size: 64KiB\n",
                             "  - type: flows-file\n    file: " + (out / "ports.csv").string() +
                                 "\n    time_offset: 2s\n"));
  const CliResult r = run_cli({"run", scenario_, "-q", "-o", out.string()});
  expect_bad_input(r,
                   "error: " + scenario_ + ": output folder '" + out.string() +
                       "' holds 'ports.csv', which this run reads (key workload.0.file), and the run would "
                       "replace it with its own: move the input or write elsewhere (-o)\n");
  EXPECT_EQ(read_text(out / "ports.csv"), flows);
  EXPECT_FALSE(fs::exists(out / "results.json"));
  // The same file elsewhere runs.
  fs::rename(out / "ports.csv", dir_ / "flows.txt");
  write_text(scenario_,
             edit(read_text(scenario_), (out / "ports.csv").string(), (dir_ / "flows.txt").string()));
  const CliResult ok = run_cli({"run", scenario_, "-q", "-o", out.string()});
  expect_clean_exit(ok);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

// A flow too long for 64-bit picoseconds at its rate (a pebibyte at 10 Mb/s)
// has no ideal time: flows.csv says inf, where it printed a wrapped 1.27 ms.
TEST_F(CliTest, IdealTimeBeyondTheTimeRangeIsInf) {
  const CliResult r =
      run_scenario(edit(edit(kGood, "rate: 100Gbps", "rate: 10Mbps"),
                        "  - type: incast\n    senders: 2\n    receiver: 0\n    size: 64KiB\n",
                        "  - type: flow\n    src: 0\n    dst: 1\n    size: 1PiB\n"));
  expect_clean_exit(r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = split(read_text(dir_ / "out" / "flows.csv"), '\n');
  ASSERT_GE(lines.size(), 2u);
  const std::vector<std::string> f = split(lines[1], ',');
  ASSERT_GE(f.size(), 8u) << lines[1];
  EXPECT_EQ(f[5], "");     // unfinished
  EXPECT_EQ(f[6], "inf");  // ideal_fct_ns
}

// --- Unknown keys --------------------------------------------------------------------------------------

TEST_F(CliTest, UnknownTopLevelKeySuggestsNearest) {
  expect_bad_input(run_scenario(edit(kGood, "duration: 1ms", "duraton: 1ms")),
                   at("2:1: 'duraton': unknown key; did you mean 'duration'? (accepted keys here: duration, "
                      "fabric, faults, links, misconfig, name, output, seed, topology, workload)"));
}

TEST_F(CliTest, UnknownNestedKeySuggestsNearest) {
  expect_bad_input(
      run_scenario(edit(kGood, "    rate: 100Gbps", "    rat: 100Gbps")),
      at("7:5: 'topology.link.rat': unknown key; did you mean 'rate'? (accepted keys here: cable, "
         "delay, length, rate)"));
}

TEST_F(CliTest, UnknownNestedKeyListsAcceptedKeys) {
  const CliResult r = run_scenario(edit(kGood, "    rate: 100Gbps", "    colour: 100Gbps"));
  expect_clean_exit(r);
  EXPECT_EQ(r.exit_code, 2);
  const std::string prefix = "error: " + scenario_ + ":7:5: 'topology.link.colour': unknown key";
  EXPECT_EQ(r.err.rfind(prefix, 0), 0u) << r.err;
  EXPECT_NE(r.err.find("(accepted keys here: cable, delay, length, rate)"), std::string::npos) << r.err;
}

// "bandwith" is 7 edits from "rate": the loader knows the field's word for
// it, misspelt or not.
TEST_F(CliTest, UnknownNestedKeySynonymSuggestsRate) {
  expect_bad_input(run_scenario(edit(kGood, "    rate: 100Gbps", "    bandwith: 100Gbps")),
                   at("7:5: 'topology.link.bandwith': unknown key; did you mean 'rate'? (accepted keys here: "
                      "cable, delay, length, rate)"));
  expect_bad_input(run_scenario(edit(kGood, "    delay: 1us", "    Latency: 1us")),
                   at("8:5: 'topology.link.Latency': unknown key; did you mean 'delay'? (accepted keys here: "
                      "cable, delay, length, rate)"));
}

// --- Wrong types ---------------------------------------------------------------------------------------

TEST_F(CliTest, MapWhereNumberExpected) {
  expect_bad_input(run_scenario(edit(kGood, "  hosts: 3", "  hosts: {count: 3}")),
                   at("5:10: 'topology.hosts': expected an integer in [2, 100000] (got a map)"));
}

TEST_F(CliTest, StringWhereIntegerExpected) {
  expect_bad_input(run_scenario(edit(kGood, "    senders: 2", "    senders: two")),
                   at("11:14: 'workload[0].senders': expected an integer in [1, 1048576] (got \"two\")"));
}

TEST_F(CliTest, MapWhereListExpected) {
  expect_bad_input(
      run_scenario(edit(kGood, "  - type: incast\n    senders: 2\n    receiver: 0\n    size: 64KiB\n",
                        "  type: incast\n")),
      at("10:3: 'workload': expected a list (got a map)"));
}

// --- Wrong units ---------------------------------------------------------------------------------------

TEST_F(CliTest, RateWithoutUnit) {
  expect_bad_input(run_scenario(edit(kGood, "    rate: 100Gbps", "    rate: 400")),
                   at("7:11: 'topology.link.rate': expected a rate with a unit, e.g. 400Gbps (got \"400\")"));
}

TEST_F(CliTest, DelayWithUnknownUnit) {
  expect_bad_input(run_scenario(edit(kGood, "    delay: 1us", "    delay: 5kg")),
                   at("8:12: 'topology.link.delay': unknown time unit 'kg' (use ps, ns, us, ms or s) "
                      "(got \"5kg\")"));
}

TEST_F(CliTest, BufferWithUnknownUnit) {
  expect_bad_input(
      run_scenario(edit(kGood, "workload:\n", "  switch:\n    buffer: 32MiBs\nworkload:\n")),
      at("10:13: 'topology.switch.buffer': unknown size unit 'MiBs' (use B, KB, MB, GB, TB, PB, KiB, "
         "MiB, GiB, TiB or PiB) (got \"32MiBs\")"));
}

// --- Impossible values ---------------------------------------------------------------------------------

TEST_F(CliTest, NegativeDuration) {
  expect_bad_input(run_scenario(edit(kGood, "duration: 1ms", "duration: -5ms")),
                   at("2:11: 'duration': time must not be negative (got \"-5ms\")"));
}

TEST_F(CliTest, ZeroDuration) {
  expect_bad_input(run_scenario(edit(kGood, "duration: 1ms", "duration: 0s")),
                   at("2:11: 'duration': expected a positive simulated duration"));
}

TEST_F(CliTest, OddFatTreeK) {
  expect_bad_input(
      run_scenario(edit(kGood, "  type: star\n  hosts: 3\n", "  type: fat-tree\n  k: 5\n")),
      at("5:6: 'topology.k': expected an even k (a k-ary fat-tree needs k/2 up and k/2 down ports)"));
}

TEST_F(CliTest, MoreIncastSendersThanOtherHosts) {
  expect_bad_input(run_scenario(edit(kGood, "    senders: 2", "    senders: 3")),
                   at("11:14: 'workload[0].senders': expected at most 2 senders (the topology has 3 hosts)"));
}

TEST_F(CliTest, IncastReceiverOutOfRange) {
  expect_bad_input(run_scenario(edit(kGood, "    receiver: 0", "    receiver: 3")),
                   at("12:15: 'workload[0].receiver': expected a host index below 3"));
}

TEST_F(CliTest, LoadAboveOne) {
  const std::string cdf = std::string(RDMASIM_SOURCE_DIR) + "/data/cdf/websearch.txt";
  expect_bad_input(
      run_scenario(edit(kGood, "  - type: incast\n    senders: 2\n    receiver: 0\n    size: 64KiB\n",
                        "  - type: cdf\n    cdf: " + cdf + "\n    load: 1.5\n    window: 1ms\n")),
      at("12:11: 'workload[0].load': expected a fraction in [0, 1] or a percentage, e.g. 0.3 or 30% "
         "(got \"1.5\")"));
}

TEST_F(CliTest, ZeroLoad) {
  const std::string cdf = std::string(RDMASIM_SOURCE_DIR) + "/data/cdf/websearch.txt";
  expect_bad_input(
      run_scenario(edit(kGood, "  - type: incast\n    senders: 2\n    receiver: 0\n    size: 64KiB\n",
                        "  - type: cdf\n    cdf: " + cdf + "\n    load: 0%\n    window: 1ms\n")),
      at("12:11: 'workload[0].load': expected a load in (0, 1], e.g. 0.3 or 30%"));
}

// Used to escape the loader as std::invalid_argument (exit 1, no location).
TEST_F(CliTest, FlowsFileTimeOffsetWithBadUnit) {
  const std::string flows =
      std::string(RDMASIM_SOURCE_DIR) + "/data/bench/websearch_128hosts_load30_5ms_flows.txt";
  expect_bad_input(
      run_scenario(edit(kGood, "  - type: incast\n    senders: 2\n    receiver: 0\n    size: 64KiB\n",
                        "  - type: flows-file\n    file: " + flows + "\n    time_offset: 2s5\n")),
      at("12:18: 'workload[0].time_offset': unknown time unit 's5' (use ps, ns, us, ms or s) (got \"2s5\")"));
}

TEST_F(CliTest, TinyMtu) {
  expect_bad_input(
      run_scenario(std::string(kGood) + "fabric:\n  mtu: 10B\n"),
      at("15:8: 'fabric.mtu': expected a payload MTU between 64B and 4096B, the largest path MTU of "
         "InfiniBand and RoCE (got 10B)"));
}

// --- Topologies ----------------------------------------------------------------------------------------

TEST_F(CliTest, EdgeListWithUnlinkedHostIsNotConnected) {
  // Nodes 0..3, node 3 is the switch; host 2 has no link.
  write_text(dir_ / "topo.txt",
             "4 1 2\n"
             "3\n"
             "0 3 100Gbps 1000ns 0.000000\n"
             "1 3 100Gbps 1000ns 0.000000\n");
  expect_bad_input(run_scenario("name: island\n"
                                "topology:\n"
                                "  type: file\n"
                                "  file: topo.txt\n"
                                "workload:\n"
                                "  - type: incast\n"
                                "    senders: 1\n"
                                "    size: 64KiB\n"),
                   at("3: 'topology': host 'n2' cannot reach host 'n0' (the topology is not connected)"));
}

TEST_F(CliTest, MissingTopologyFile) {
  expect_bad_input(
      run_scenario(edit(kGood, "  type: star\n  hosts: 3\n", "  type: file\n  file: nope.txt\n")),
      at("5:9: 'topology.file': file not found: 'nope.txt' (looked beside the scenario as '" +
         (dir_ / "nope.txt").string() + "', in the working directory and among the files rdmasim ships)"));
}

// A name longer than the OS allows (ENAMETOOLONG) is a file that is not
// there, not a std::filesystem_error escaping with exit code 1.
TEST_F(CliTest, OverlongTopologyFileName) {
  const std::string name(300, 'a');
  expect_bad_input(
      run_scenario(edit(kGood, "  type: star\n  hosts: 3\n", "  type: file\n  file: " + name + "\n")),
      at("5:9: 'topology.file': file not found: '" + name + "' (looked beside the scenario as '" +
         (dir_ / name).string() + "', in the working directory and among the files rdmasim ships)"));
}

TEST_F(CliTest, MissingTopologyType) {
  expect_bad_input(run_scenario(edit(kGood, "  type: star\n", "")),
                   at("4:3: 'topology.type': missing required key (expected one of: star, dumbbell, "
                      "leaf-spine, two-site, fat-tree, servers, chain, file)"));
}

TEST_F(CliTest, MissingTopology) {
  expect_bad_input(run_scenario("name: t\nworkload:\n  - {type: incast, senders: 1, size: 1KiB}\n"),
                   at("1:1: 'topology': missing required key (expected a map)"));
}

// --- Files and syntax ----------------------------------------------------------------------------------

TEST_F(CliTest, MissingScenarioFile) {
  const std::string missing = (dir_ / "missing.yaml").string();
  const CliResult r = run_cli({"run", missing});
  expect_clean_exit(r);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "scenario: File does not exist: " + missing + "\nRun with --help for more information.\n");
}

TEST_F(CliTest, TabIndentationIsASyntaxError) {
  expect_bad_input(run_scenario(edit(kGood, "  hosts: 3", "\thosts: 3")),
                   at("5:1: invalid YAML: illegal tab when looking for indentation"));
}

TEST_F(CliTest, StrayScalarIsASyntaxError) {
  expect_bad_input(run_scenario(std::string(kGood) + "  oops\n"),
                   at("14:3: invalid YAML: end of map not found"));
}

TEST_F(CliTest, DuplicateKey) {
  expect_bad_input(run_scenario(edit(kGood, "  hosts: 3\n", "  hosts: 3\n  hosts: 4\n")),
                   at("6:3: 'topology.hosts': duplicate key (first defined on line 5)"));
}

TEST_F(CliTest, SecondDocument) {
  expect_bad_input(run_scenario(std::string(kGood) + "---\nname: again\n"),
                   at("14: expected a single YAML document, but another one starts here"));
}

// --- --set ---------------------------------------------------------------------------------------------

TEST_F(CliTest, SetWithoutEquals) {
  expect_bad_input(run_scenario(kGood, {"--set", "topology.hosts"}),
                   "error: <--set>: 'topology.hosts': expected key=value, e.g. --set topology.k=8\n");
}

TEST_F(CliTest, SetUnknownKey) {
  expect_bad_input(run_scenario(kGood, {"--set", "topology.hots=4"}),
                   "error: <--set>: 'topology.hots': unknown key; did you mean 'hosts'? (accepted keys here: "
                   "hosts, link, switch, type)\n");
}

TEST_F(CliTest, SetBadValue) {
  expect_bad_input(run_scenario(kGood, {"--set", "topology.hosts=abc"}),
                   "error: <--set>: 'topology.hosts': expected an integer in [2, 100000] (got \"abc\")\n");
}

TEST_F(CliTest, SetGoodValueIsApplied) {
  const CliResult r = run_scenario(kGood, {"--set", "topology.hosts=2"});
  expect_bad_input(r, "error: " + scenario_ +
                          ":11:14: 'workload[0].senders': expected at most 1 senders (the topology has 2 "
                          "hosts)\n");
}

// --- Profiles and workloads ----------------------------------------------------------------------------

std::string known_profiles() {
  std::string known;
  for (const auto& n : profile_names()) known += (known.empty() ? "" : ", ") + n;
  return known;
}

TEST_F(CliTest, UnknownFabricProfile) {
  expect_bad_input(run_scenario(std::string(kGood) + "fabric:\n  profile: infiniband-hdr\n"),
                   at("15:12: 'fabric.profile': unknown fabric profile 'infiniband-hdr' (known: " +
                      known_profiles() + ")"));
}

TEST_F(CliTest, EmptyWorkloadList) {
  expect_bad_input(
      run_scenario(edit(kGood,
                        "workload:\n  - type: incast\n    senders: 2\n    receiver: 0\n    size: 64KiB\n",
                        "workload: []\n")),
      at("9:11: 'workload': expected at least one workload"));
}

TEST_F(CliTest, UnknownWorkloadTypeSuggestsNearest) {
  expect_bad_input(run_scenario(edit(kGood, "  - type: incast", "  - type: incats")),
                   at("10:11: 'workload[0].type': expected one of: incast, permutation, all-to-all, cdf, "
                      "flows-file, flow, collective, training, background, perftest, osu, halo3d, nvmeof, "
                      "stream (got \"incats\"); did you mean 'incast'?"));
}

// --- Other subcommands ---------------------------------------------------------------------------------

TEST_F(CliTest, UnknownPerftest) {
  const CliResult r = run_cli({"perftest", "bogus_test"});
  expect_bad_input(r,
                   "error: perftest: unknown perftest 'bogus_test' (expected write_lat, send_lat, read_lat, "
                   "write_bw, send_bw or read_bw)\n");
}

TEST_F(CliTest, OsuAndFioRefuseWhatTheToolsWould) {
  expect_bad_input(run_cli({"osu", "latency", "--np", "4"}),
                   "error: osu: osu_latency runs on exactly two ranks (--np 2)\n");
  expect_bad_input(
      run_cli({"osu", "ping"}),
      "error: osu: unknown OSU benchmark 'osu_ping' (known: osu_latency, osu_bw, osu_bibw, osu_mbw_mr, "
      "osu_allreduce, osu_alltoall, osu_barrier)\n");
  expect_bad_input(run_cli({"osu", "latency", "-W", "8"}),
                   "error: osu: -W: only osu_bw, osu_bibw and osu_mbw_mr keep a window in flight\n");
  expect_bad_input(run_cli({"osu", "mbw_mr", "--np", "3"}),
                   "error: osu: osu_mbw_mr pairs rank i with rank i + np/2: --np must be even\n");
  expect_bad_input(run_cli({"fio", "--bs=1000"}),
                   "error: fio: --bs must be a multiple of the 512 B logical block\n");
  expect_bad_input(
      run_cli({"fio", "--rw=read"}),
      "error: fio: --rw: expected randread, randwrite or randrw (the SSD model has no locality, so no "
      "sequential mode); got read\n");
  expect_bad_input(run_cli({"fio", "--rwmixread=70"}),
                   "error: fio: --rwmixread: only --rw=randrw mixes reads and writes\n");
}

// More iterations than perftest's 100 s of simulated time can hold are
// refused before simulating (they ran for 19 s and then failed): a latency
// iteration needs at least a round trip of propagation (2 x 2 hops x 1us),
// a bandwidth test at least its bytes at the link rate.
TEST_F(CliTest, PerftestIterationsBeyondItsTimeLimitAreRefusedUpFront) {
  expect_bad_input(
      run_cli({"perftest", "write_lat", "-n", "100000000"}),
      "error: perftest: 100000000 iterations need at least 400.000 s of simulated time, more than "
      "the 100s a perftest runs: ask for fewer (-n)\n");
  expect_bad_input(
      run_cli({"perftest", "write_bw", "-n", "100000000"}),
      "error: perftest: 100000000 iterations need at least 524.288 s of simulated time, more than "
      "the 100s a perftest runs: ask for fewer (-n)\n");
}

// --mtu means what the fabric's MTU is: RC's payload per packet, iWARP's
// Ethernet MTU (it used to set RC's and be ignored on iWARP). Out of the
// Ethernet range it is refused; in range it changes the segment size.
TEST_F(CliTest, MtuOnIwarpIsTheEthernetMtu) {
  expect_bad_input(run_cli({"perftest", "write_lat", "--fabric", "iwarp-cubic", "--mtu", "100"}),
                   "error: perftest: --mtu on iWARP is the Ethernet MTU: expected 576 to 9216 bytes\n");
  const CliResult jumbo =
      run_cli({"perftest", "write_bw", "--fabric", "iwarp-cubic", "--mtu", "9000", "-n", "50"});
  EXPECT_EQ(jumbo.exit_code, 0) << jumbo.err;
  EXPECT_NE(jumbo.out.find("Transport type : iWARP (TCP)"), std::string::npos) << jumbo.out;
  EXPECT_NE(jumbo.out.find("9000[B] Ethernet (8940[B] per segment)"), std::string::npos) << jumbo.out;
}

TEST_F(CliTest, RunWithoutScenario) {
  const CliResult r = run_cli({"run"});
  expect_bad_input(r, "scenario is required\nRun with --help for more information.\n");
}

TEST_F(CliTest, NoSubcommand) {
  const CliResult r = run_cli({});
  expect_bad_input(r, "A subcommand is required\nRun with --help for more information.\n");
}

// --- nccl-tests --------------------------------------------------------------------------------------

TEST_F(CliTest, NcclTestsUnknownTest) {
  const CliResult r = run_cli({"nccl-tests", "all_reduc_perf"});
  expect_bad_input(r,
                   "error: nccl-tests: test: unknown collective 'all_reduc' (known: all_reduce, all_gather, "
                   "reduce_scatter, broadcast, reduce, alltoall, sendrecv)\n");
}

TEST_F(CliTest, NcclTestsBadSize) {
  const CliResult r = run_cli({"nccl-tests", "all_reduce_perf", "-b", "12Q"});
  expect_bad_input(r, "error: nccl-tests: -b '12Q': expected a size such as 8, 128K, 1G or 64MiB\n");
}

TEST_F(CliTest, NcclTestsAlgorithmThatDoesNotApply) {
  const CliResult r = run_cli({"nccl-tests", "alltoall_perf", "--algo", "tree", "-b", "1K", "-e", "1K"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("error: nccl-tests: --algo tree does not implement alltoall"), std::string::npos)
      << r.err;
}

TEST_F(CliTest, NcclTestsHostCpuUnknownOrWithoutEffect) {
  expect_bad_input(run_cli({"nccl-tests", "all_reduce_perf", "--host-cpu", "arm", "-b", "1K", "-e", "1K"}),
                   "error: nccl-tests: --host-cpu: unknown host CPU 'arm' (known: intel, amd)\n");
  expect_bad_input(
      run_cli({"nccl-tests", "all_reduce_perf", "--nodes", "1", "--host-cpu", "amd", "-b", "1K", "-e", "1K"}),
      "error: nccl-tests: --host-cpu has no effect on one server: NCCL's tuner looks at the GPU there\n");
  const CliResult t = run_cli({"train", "--tp", "8", "--pp", "1", "--dp", "1", "--host-cpu", "amd"});
  EXPECT_EQ(t.exit_code, 2);
  EXPECT_NE(t.err.find("--host-cpu has no effect on one server"), std::string::npos) << t.err;
}

// rdmasim sweep: a grid value the scenario refuses stops the sweep before any
// cell runs, naming the cell; nothing is written.
TEST_F(CliTest, SweepRefusesABadGridBeforeRunning) {
  const std::string out = (dir_ / "sweep").string();
  const CliResult r = run_cli({"sweep", find_shipped("scenarios/nccl-allreduce-tree-ib-ndr.yaml"), "--grid",
                               "workload.0.qps=1,99", "-o", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("error: sweep: the cell workload.0.qps=99: "), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  expect_bad_input(run_cli({"sweep", find_shipped("scenarios/nccl-allreduce-tree-ib-ndr.yaml"), "--grid",
                            "workload.0.qps", "-o", out}),
                   "error: sweep: 'workload.0.qps': expected key=value1,value2,... e.g. "
                   "fabric.ecn.kmin=100KB,400KB\n");
}

TEST_F(CliTest, NcclTestsUnknownFabric) {
  const CliResult r = run_cli({"nccl-tests", "all_reduce_perf", "--fabric", "ib-xdr"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("error: nccl-tests: --fabric: unknown fabric profile 'ib-xdr'"), std::string::npos)
      << r.err;
}

// SHARP is a property of the fabric: refused where the switches lack it,
// never run as ring in its place; --sharp models a vendor extension.
TEST_F(CliTest, SharpOnlyWhereTheFabricOffersIt) {
  const std::string no_sharp =
      "fabric 'rocev2-dcqcn' has no in-network aggregation (SHARP is a feature of InfiniBand switches: "
      "ib-ndr, ib-hdr); to model a vendor extension of this fabric (an assumption), pass --sharp "
      "(fabric.sharp.enabled: true)\n";
  const std::vector<std::string> small{"-b", "1M", "-e", "1M", "--nodes", "2", "-g", "2"};
  auto nccl = [&](std::vector<std::string> more) {
    std::vector<std::string> a{"nccl-tests", "all_reduce_perf"};
    a.insert(a.end(), small.begin(), small.end());
    a.insert(a.end(), more.begin(), more.end());
    return run_cli(a);
  };
  expect_bad_input(nccl({"--fabric", "rocev2-dcqcn", "--algo", "sharp"}),
                   "error: nccl-tests: --algo sharp: " + no_sharp);
  expect_bad_input(run_cli({"train", "--fabric", "rocev2-dcqcn", "--dp-algo", "sharp"}),
                   "error: train: --dp-algo sharp: " + no_sharp);
  const CliResult ib = nccl({"--fabric", "ib-ndr", "--algo", "sharp"});
  ASSERT_EQ(ib.exit_code, 0) << ib.err;
  EXPECT_EQ(ib.out.find("SHARP: no aggregation group"), std::string::npos) << ib.out;
  EXPECT_EQ(ib.out.find("assumed"), std::string::npos) << ib.out;
  const CliResult roce = nccl({"--fabric", "rocev2-dcqcn", "--algo", "sharp", "--sharp"});
  ASSERT_EQ(roce.exit_code, 0) << roce.err;
  EXPECT_NE(roce.out.find("# in-network aggregation: assumed (fabric.sharp.enabled: true), not part of this "
                          "profile\n"),
            std::string::npos)
      << roce.out;
  EXPECT_EQ(roce.out.find("SHARP: no aggregation group"), std::string::npos) << roce.out;
  // --sharp is used or refused.
  expect_bad_input(nccl({"--fabric", "ib-ndr", "--algo", "sharp", "--sharp"}),
                   "error: nccl-tests: --sharp has no effect: 'ib-ndr' already has in-network aggregation "
                   "(SHARP)\n");
  expect_bad_input(nccl({"--fabric", "rocev2-dcqcn", "--sharp"}),
                   "error: nccl-tests: --sharp has no effect: only --algo sharp, and --algo nvls across "
                   "servers, aggregate in the network\n");
  expect_bad_input(run_cli({"train", "--fabric", "rocev2-dcqcn", "--sharp"}),
                   "error: train: --sharp has no effect: only --dp-algo sharp aggregates in the network\n");
}

TEST_F(CliTest, SharpInAScenarioNeedsTheFabricKey) {
  const std::string yaml = R"(name: s
topology: {type: servers, servers: 2, gpus_per_server: 2, spines: 1, link: {rate: 400Gbps, delay: 1us}}
fabric: {profile: rocev2-dcqcn-400g}
workload:
  - {type: collective, op: all_reduce, algo: sharp, size: 1MiB}
)";
  expect_bad_input(run_scenario(yaml),
                   at("5:46: 'workload[0].algo': fabric 'rocev2-dcqcn-400g' has no in-network aggregation "
                      "(SHARP is a feature of InfiniBand switches: ib-ndr, ib-hdr); to model a vendor "
                      "extension of this fabric (an assumption), set fabric.sharp.enabled: true"));
  // NVLS across servers runs with IB SHARP (NCCL's CollNet) and needs it too.
  const std::string nvls = R"(name: s
topology: {type: servers, servers: 2, gpus_per_server: 4, spines: 1, link: {rate: 400Gbps, delay: 1us}}
fabric: {profile: rocev2-dcqcn-400g}
workload:
  - {type: collective, op: all_reduce, algo: nvls, size: 1MiB}
)";
  expect_bad_input(run_scenario(nvls),
                   at("5:46: 'workload[0].algo': nvls across servers runs with IB SHARP (NCCL's CollNet): "
                      "fabric 'rocev2-dcqcn-400g' has no in-network aggregation (SHARP is a feature of "
                      "InfiniBand switches: ib-ndr, ib-hdr); to model a vendor extension of this fabric (an "
                      "assumption), set fabric.sharp.enabled: true; or use nvlstree"));
  const CliResult nvls_ib = run_scenario(nvls, {"--set", "fabric.profile=ib-ndr"});
  ASSERT_EQ(nvls_ib.exit_code, 0) << nvls_ib.err;
  EXPECT_NE(nvls_ib.out.find("collective all_reduce nvls/Simple"), std::string::npos) << nvls_ib.out;
  const CliResult on = run_scenario(yaml, {"--set", "fabric.sharp.enabled=true"});
  ASSERT_EQ(on.exit_code, 0) << on.err;
  EXPECT_NE(on.out.find("collective all_reduce sharp"), std::string::npos) << on.out;
  const CliResult ib = run_scenario(yaml, {"--set", "fabric.profile=ib-ndr"});
  ASSERT_EQ(ib.exit_code, 0) << ib.err;
  EXPECT_NE(ib.out.find("collective all_reduce sharp"), std::string::npos) << ib.out;
  expect_bad_input(run_scenario(yaml, {"--set", "fabric.sharp.switch_latency=1us"}),
                   "error: <--set>: 'fabric.sharp.switch_latency': has no effect: in-network aggregation is "
                   "off (set fabric.sharp.enabled: true to use it)\n");
  const std::string training = R"(name: s
topology: {type: servers, servers: 2, gpus_per_server: 8, spines: 2, link: {rate: 400Gbps, delay: 1us}}
fabric: {profile: iwarp-dctcp}
workload:
  - {type: training, model: gpt3-xl, dp_algo: sharp}
)";
  const CliResult t = run_scenario(training);
  EXPECT_EQ(t.exit_code, 2);
  EXPECT_NE(t.err.find(":5:47: 'workload[0].dp_algo': fabric 'iwarp-dctcp' has no in-network aggregation"),
            std::string::npos)
      << t.err;
}

TEST_F(CliTest, HelpNamesOnlyFabricsThatExist) {
  const CliResult r = run_cli({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("rdmasim: packet-level simulator for RDMA fabrics (RoCEv2, InfiniBand, iWARP, UET)"),
            std::string::npos)
      << r.out;
}

TEST_F(CliTest, NcclTestsPrintsTableAndJson) {
  const auto json = dir_ / "nccl.json";
  const CliResult r = run_cli({"nccl-tests", "all_gather_perf", "-b", "1K", "-e", "4K", "-f", "2", "--nodes",
                               "2", "-g", "2", "--fabric", "ideal", "--json", json.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("#       size        count     type  redop   root     time   algbw   busbw #wrong"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("# Avg bus bandwidth"), std::string::npos);
  const auto j = nlohmann::json::parse(read_text(json));
  ASSERT_EQ(j["rows"].size(), 3u);
  EXPECT_EQ(j["rows"][2]["size"], 4096);
  EXPECT_EQ(j["nranks"], 4);
}

TEST_F(CliTest, TrainWritesAPerfettoTraceFile) {
  const auto trace = dir_ / "trace.json";
  const CliResult r = run_cli({"train", "--model", "gpt3-xl", "--tp", "2", "--pp", "2", "--dp", "4",
                               "--micro-batches", "2", "--fabric", "ideal", "--trace", trace.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("exposed communication"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(read_text(trace));
  ASSERT_TRUE(j["traceEvents"].is_array());
  size_t complete = 0;
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "X") {
      ++complete;
      EXPECT_TRUE(e["ts"].is_number() && e["dur"].is_number() && e["pid"].is_number() &&
                  e["tid"].is_number());
    }
  EXPECT_GT(complete, 100u);
}

TEST_F(CliTest, ClusterFlagsAreCheckedAlikeByNcclTestsAndTrain) {
  for (const std::string cmd : {"nccl-tests", "train"}) {
    std::vector<std::string> args{cmd};
    if (cmd == "nccl-tests") args.emplace_back("all_reduce_perf");
    auto with = [&](std::vector<std::string> more) {
      std::vector<std::string> a = args;
      a.insert(a.end(), more.begin(), more.end());
      return run_cli(a);
    };
    expect_bad_input(
        with({"--mtu", "16K"}),
        "error: " + cmd +
            ": --mtu must be between 64 and 4096 bytes, the largest path MTU of InfiniBand and RoCE\n");
    expect_bad_input(
        with({"--fabric", "roce"}),
        "error: " + cmd + ": --fabric: unknown fabric profile 'roce' (known: " + known_profiles() + ")\n");
    expect_bad_input(with({"--background-load", "1.5"}),
                     "error: " + cmd + ": --background-load must be between 0 and 1\n");
    const CliResult bad_rate = with({"--rate", "fast"});
    EXPECT_EQ(bad_rate.exit_code, 2);
    EXPECT_NE(bad_rate.err.find("error: " + cmd + ": --rate: "), std::string::npos) << bad_rate.err;
  }
}

TEST_F(CliTest, TrainBadLayout) {
  const CliResult r = run_cli({"train", "--tp", "3"});
  expect_bad_input(
      r,
      "error: train: parallel.tp must divide the GPUs per server (8): tensor parallelism stays on "
      "NVLink\n");
}

// --- run --check, and the flags of every subcommand (fuzz/fuzz_cli.cpp) -------------------------------

// Every check of a real run, word for word, then nothing run and nothing written.
TEST_F(CliTest, RunCheckChecksLikeARunAndWritesNothing) {
  write_text(scenario_, kGood);
  const fs::path out = dir_ / "out" / "deeper";
  const CliResult ok = run_cli({"run", scenario_, "--check", "-o", out.string()});
  expect_clean_exit(ok);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out, "ok: " + scenario_ + " (outputs to " + out.string() + ")\n");
  EXPECT_EQ(ok.err, "");
  EXPECT_FALSE(fs::exists(dir_ / "out")) << "--check created the output folder";

  write_text(scenario_, edit(kGood, "duration: 1ms", "duration: -5ms"));
  expect_bad_input(run_cli({"run", scenario_, "--check"}),
                   at("2:11: 'duration': time must not be negative (got \"-5ms\")"));

  write_text(scenario_, kGood);
  write_text(dir_ / "taken", "keep me\n");
  expect_bad_input(run_cli({"run", scenario_, "--check", "-o", (dir_ / "taken").string()}),
                   "error: " + scenario_ + ": output directory '" + (dir_ / "taken").string() +
                       "' exists and is not a directory\n");
  expect_bad_input(
      run_cli({"run", scenario_, "--check", "--max-memory", "lots"}),
      "error: --max-memory: expected a size, e.g. 8GiB (expected a size with a unit, e.g. 32MiB or "
      "4KB)\n");

  write_text(scenario_, R"(name: big
duration: 1us
topology: {type: fat-tree, k: 16, link: {rate: 100Gbps, delay: 1us}}
workload: [{type: flow, src: 0, dst: 1, size: 1KB}]
)");
  expect_bad_input(run_cli({"run", scenario_, "--check", "--max-memory", "10MiB"}),
                   "error: " + scenario_ +
                       ":3: 'topology': this network needs an estimated 16 MiB to build (320 switches x 1024 "
                       "hosts of routes, 6144 ports), more than the 10 MiB allowed by --max-memory\n");
}

// --check sets the run up as the run would, so what only the built network
// and its workloads reveal is refused by the check too, and --strict applies.
TEST_F(CliTest, RunCheckSetsTheRunUpAndRefusesWhatTheRunWould) {
  const std::string base = R"(name: tiny
duration: 1ms
topology:
  type: star
  hosts: 3
  link: {rate: 100Gbps, delay: 1us}
  switch: {buffer: 20KB}
fabric: {profile: rocev2-dcqcn}
workload:
  - {type: incast, senders: 2, receiver: 0, size: 64KiB}
)";
  write_text(scenario_, base);
  const fs::path out = dir_ / "out";
  expect_bad_input(run_cli({"run", scenario_, "--check", "-o", out.string()}),
                   "error: " + scenario_ +
                       ": 'fabric': switch 'sw0': PFC headroom and reserved bytes for 3 ports x 1 lossless "
                       "classes need 119340 bytes, more than its 20000-byte buffer\n");
  const std::string late = edit(base, "buffer: 20KB", "buffer: 32MB") +
                           "  - {type: flow, src: 1, dst: 2, size: 1KB, start: 5ms}\n";
  write_text(scenario_, late);
  const CliResult warned = run_cli({"run", scenario_, "--check", "-o", out.string()});
  EXPECT_EQ(warned.exit_code, 0) << warned.err;
  EXPECT_EQ(warned.err,
            "warning: " + scenario_ +
                ": 1 of 3 flows start at or after the end of the run (duration 1ms) and are never "
                "started\n");
  expect_bad_input(run_cli({"run", scenario_, "--check", "--strict", "-o", out.string()}),
                   "error: " + scenario_ +
                       ": 1 of 3 flows start at or after the end of the run (duration 1ms) and are never "
                       "started (--strict)\n");
  EXPECT_FALSE(fs::exists(out)) << "--check wrote an output folder";
}

// An output folder name longer than the OS allows escaped as
// std::filesystem_error (exit 1, "filesystem error: status").
TEST_F(CliTest, OutputFolderNameTooLongIsBadInput) {
  write_text(scenario_, kGood);
  const std::string name(300, 'a');
  for (const bool check : {false, true}) {
    std::vector<std::string> args{"run", scenario_, "-q", "-o", name};
    if (check) args.emplace_back("--check");
    expect_bad_input(run_cli(args), "error: " + scenario_ + ": cannot create output directory '" + name +
                                        "': File name too long\n");
  }
}

// A byte count too large for an integer said only "stoll".
TEST_F(CliTest, PerftestSizeBeyondAnyIntegerNamesTheFlag) {
  expect_bad_input(run_cli({"perftest", "write_lat", "-s", "99999999999999999999"}),
                   "error: perftest: -s/--size: expected a size in bytes, e.g. 65536 or 64KiB (got "
                   "99999999999999999999)\n");
  expect_bad_input(run_cli({"perftest", "write_lat", "--rate", "400"}),
                   "error: perftest: --rate: expected a rate with a unit, e.g. 400Gbps\n");
}

// An unknown name used to print an empty table and exit 0.
TEST_F(CliTest, BenchOnlyAnUnknownScenarioIsRefused) {
  const CliResult r = run_cli({"bench", "--only", "nosuch"});
  expect_clean_exit(r);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("error: bench: --only: no bench scenario 'nosuch' (bench scenarios: ", 0), 0u)
      << r.err;
  EXPECT_EQ(r.out, "");
}

// validate runs one group of cases on request (the whole set takes minutes),
// in the order --list gives; an unknown group is refused before any runs.
TEST_F(CliTest, ValidateOnlyRunsTheNamedGroups) {
  const CliResult list = run_cli({"validate", "--list"});
  expect_clean_exit(list);
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_EQ(list.out.rfind("latency\ngoodput\nDCQCN\nPFC\nvictim flow\n", 0), 0u) << list.out;
  const CliResult pfc = run_cli({"validate", "--only", "pfc"});
  expect_clean_exit(pfc);
  EXPECT_EQ(pfc.exit_code, 0) << pfc.err;
  EXPECT_NE(pfc.out.find("16-to-1 incast, PFC on"), std::string::npos) << pfc.out;
  EXPECT_EQ(pfc.out.find("victim flow beside"), std::string::npos) << "only the PFC group: " << pfc.out;
  EXPECT_NE(pfc.out.find("\n2 passed, 0 failed, 0 known gaps"), std::string::npos) << pfc.out;
  const CliResult bad = run_cli({"validate", "--only", "PFC", "--only", "nosuch"});
  expect_clean_exit(bad);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err.rfind("error: validate: --only: no validation group 'nosuch' (groups: 'latency', ", 0),
            0u)
      << bad.err;
  EXPECT_EQ(bad.out, "");
}

// The 8,192-host runs (minutes each) are listed, marked, and left out of a
// plain `bench`; --only and --scale reach them.
TEST_F(CliTest, BenchListsTheScaleRunsApart) {
  const CliResult r = run_cli({"bench", "--list"});
  expect_clean_exit(r);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("websearch-k8-128hosts\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("permutation-fattree-8192hosts  (scale: run with --scale or --only)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("websearch-k32-8192hosts-dcqcn  (scale: run with --scale or --only)\n"),
            std::string::npos)
      << r.out;
}

// A bench row's events per data packet-hop is its events over its hops.
TEST_F(CliTest, BenchPrintsEventsPerDataPacketHop) {
  const CliResult r = run_cli({"bench", "--only", "websearch-k8-128hosts-uet"});
  expect_clean_exit(r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(" events/hop "), std::string::npos) << r.out;
  const size_t row = r.out.find("\nwebsearch-k8-128hosts-uet ");
  ASSERT_NE(row, std::string::npos) << r.out;
  std::istringstream in(r.out.substr(row + 1));
  std::string name;
  double sim_ms = 0, wall_s = 0, events_per_s = 0, hops_per_s = 0, per_hop = 0;
  unsigned long long events = 0, hops = 0;
  in >> name >> sim_ms >> wall_s >> events >> events_per_s >> hops >> hops_per_s >> per_hop;
  ASSERT_FALSE(in.fail()) << r.out;
  ASSERT_GT(hops, 0u) << r.out;
  EXPECT_GE(events, hops) << "a data packet-hop takes at least one event";
  EXPECT_NEAR(per_hop, static_cast<double>(events) / static_cast<double>(hops), 0.005) << r.out;
}

// nan passes CLI11's ranges (it compares false with both bounds), and inf
// parameters reached the simulation as undefined conversions.
TEST_F(CliTest, RealFlagsRefuseNanAndInfinity) {
  for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
           {"--params", "inf"}, {"--params", "nan"}, {"--mfu", "nan"}, {"--peak-tflops", "inf"}}) {
    const CliResult r = run_cli({"train", flag, value});
    expect_clean_exit(r);
    EXPECT_EQ(r.exit_code, 2) << flag << " " << value;
    EXPECT_EQ(r.err.rfind(fmt::format("{}: Value {} not in range", flag, value), 0), 0u) << r.err;
  }
  for (const std::string cmd : {"nccl-tests", "train"}) {
    std::vector<std::string> args{cmd};
    if (cmd == "nccl-tests") args.emplace_back("all_reduce_perf");
    args.insert(args.end(), {"--background-load", "nan"});
    expect_bad_input(run_cli(args), "error: " + cmd + ": --background-load must be between 0 and 1\n");
  }
}

// Output files are checked before the simulation, not written after it.
TEST_F(CliTest, OutputFilesAreCheckedBeforeRunning) {
  write_text(dir_ / "file", "keep me\n");
  const std::string under_file = (dir_ / "file" / "x.json").string();
  expect_bad_input(run_cli({"nccl-tests", "all_reduce_perf", "--json", under_file}),
                   "error: nccl-tests: --json: cannot write '" + under_file + "': output directory '" +
                       (dir_ / "file").string() + "' exists and is not a directory\n");
  expect_bad_input(run_cli({"train", "--trace", dir_.string()}),
                   "error: train: --trace: cannot write '" + dir_.string() + "': it is a directory\n");
  expect_bad_input(run_cli({"demo", "-o", (dir_ / "file").string()}),
                   "error: evaluate: -o/--out: output directory '" + (dir_ / "file").string() +
                       "' exists and is not a directory\n");
  EXPECT_EQ(read_text(dir_ / "file"), "keep me\n");
}

// `evaluate -o` into another evaluation's folder is refused before anything
// runs (it overwrote that one's report and left its cells beside the new
// ones), whether the folder has its evaluation.json or only the cells of a
// run that stopped before the report; the same evaluation resumes there.
TEST_F(CliTest, EvaluateRefusesAnotherEvaluationsFolder) {
  const std::string eval_text =
      "cluster: {servers: 2, gpus_per_server: 1, nic_rate: 100Gbps, topology: leaf-spine}\n"
      "duration: 5ms\nfabrics: [ib-ndr]\nworkloads: [{type: latency, iters: 20}]\n"
      "weights: {latency: 1}\n";
  const fs::path first = dir_ / "first.yaml";
  const fs::path second = dir_ / "second.yaml";
  write_text(first, "name: first\n" + eval_text);
  write_text(second, "name: second\n" + eval_text);
  const fs::path out = dir_ / "eval";
  const CliResult ran = run_cli({"evaluate", first.string(), "-o", out.string(), "-q", "-j", "1"});
  expect_clean_exit(ran);
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  const std::string report = read_text(out / "evaluation.json");
  const std::string cell = "ib-ndr.latency.baseline.s1";

  const auto refused = [&](const fs::path& source) {
    expect_bad_input(run_cli({"evaluate", second.string(), "-o", out.string(), "-q"}),
                     "error: evaluate: -o/--out: '" + out.string() + "' holds the evaluation 'first' (" +
                         source.string() +
                         " names it), not 'second': expected a new folder or one an earlier run of 'second' "
                         "wrote; choose another -o, or delete '" +
                         out.string() + "' to start 'second' there\n");
    EXPECT_EQ(std::distance(fs::directory_iterator(out / "cells"), fs::directory_iterator{}), 1)
        << "cells added";
  };
  refused(out / "evaluation.json");
  EXPECT_EQ(read_text(out / "evaluation.json"), report);
  fs::remove(out / "evaluation.json");
  refused(out / "cells" / cell / "scenario.yaml");

  // The same evaluation resumes, its finished cell reused.
  const CliResult again = run_cli({"evaluate", first.string(), "-o", out.string(), "-q", "-j", "1"});
  expect_clean_exit(again);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("1 cells (0 simulated, 1 reused)"), std::string::npos) << again.out;
  EXPECT_EQ(read_text(out / "evaluation.json"), report);
}

// A sweep whose largest size cannot be planned is refused before the smaller
// sizes run (they used to run first, for nothing).
TEST_F(CliTest, NcclTestsSweepTooFineIsRefusedBeforeRunning) {
  const CliResult r =
      run_cli({"nccl-tests", "all_reduce_perf", "-b", "8", "-e", "1G", "--chunk", "16", "--nodes", "2"});
  expect_clean_exit(r);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "") << "sizes ran before the refusal";
  EXPECT_NE(r.err.find("raise the chunk size (--chunk)"), std::string::npos) << r.err;
}

// A ring's steps, not the size, make the plan too large on many ranks: the
// refusal says so, instead of advising a larger chunk that cannot help.
TEST_F(CliTest, NcclTestsTooManyRanksForARingSaysWhy) {
  const CliResult r = run_cli({"nccl-tests", "all_reduce_perf", "-b", "8", "-e", "8", "--nodes", "2048",
                               "--algo", "ring", "--fabric", "ideal"});
  expect_clean_exit(r);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("ring on 16384 ranks takes about 16384 steps per channel on every rank"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("--chunk"), std::string::npos) << r.err;
}

// A rail cluster larger than one scalable unit gets a leaf per rail per 32
// servers (a 160-server rail leaf once needed 320 ports of PFC headroom, more
// than its buffer, and the run failed with exit 1); a fabric the flags make
// impossible is bad input (exit 2); the rail-only flags are refused on a
// leaf-spine cluster.
TEST_F(CliTest, LargeRailClustersBuildInScalableUnits) {
  const CliResult ok = run_cli({"nccl-tests", "all_reduce_perf", "-b", "8", "-e", "8", "--nodes", "160"});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  const CliResult big = run_cli({"nccl-tests", "all_reduce_perf", "-b", "8", "-e", "8", "--nodes", "160",
                                 "--servers-per-leaf", "160", "--switch-radix", "512"});
  expect_clean_exit(big);
  EXPECT_EQ(big.exit_code, 2);
  EXPECT_NE(big.err.find("PFC headroom and reserved bytes for 320 ports"), std::string::npos) << big.err;
  expect_bad_input(
      run_cli({"nccl-tests", "all_reduce_perf", "--topo", "leaf-spine", "--servers-per-leaf", "4"}),
      "error: nccl-tests: --servers-per-leaf has no effect: --topo leaf-spine gives every server "
      "its own leaf\n");
  const CliResult narrow =
      run_cli({"nccl-tests", "all_reduce_perf", "--nodes", "64", "--switch-radix", "32"});
  EXPECT_EQ(narrow.exit_code, 2);
  EXPECT_NE(narrow.err.find("more than switch_radix 32"), std::string::npos) << narrow.err;
}

// More ranks than an InfiniBand subnet has LIDs: refused up front, with the limit.
TEST_F(CliTest, OsuBeyondTheSubnetsLidsIsRefused) {
  expect_bad_input(
      run_cli({"osu", "osu_allreduce", "--np", "65536", "--fabric", "ib-ndr"}),
      "error: osu: --np 65536: an InfiniBand subnet has at most 49151 unicast LIDs (IBTA Vol.1 4.1.3), one "
      "per rank's HCA and one per switch, and this job's 2080 switches leave room for 47071 ranks\n");
}

// A seed is an integer from 0 to 2^63 - 1 on every command, as in a scenario
// file (the command line once saturated a larger one and wrapped a negative one).
TEST_F(CliTest, SeedsOutOfRangeAreRefusedEverywhere) {
  const std::string scenario = find_shipped("scenarios/incast-star.yaml");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", scenario, "--check", "--seed", "99999999999999999999"},
        {"run", scenario, "--check", "--seed", "-1"},
        {"nccl-tests", "all_reduce_perf", "--seed", "-5"},
        {"train", "--seed", "18446744073709551615"},
        {"sweep", scenario, "--grid", "duration=1ms", "--seeds", "1,99999999999999999999"}}) {
    const CliResult r = run_cli(args);
    expect_clean_exit(r);
    EXPECT_EQ(r.exit_code, 2) << args[0];
    EXPECT_NE(r.err.find("expected a seed from 0 to 9223372036854775807"), std::string::npos) << r.err;
  }
}

// A sweep's seeds come from --seeds alone, and no cell is asked for twice.
TEST_F(CliTest, SweepRefusesSeedAxesAndRepeatedCells) {
  const std::string scenario = find_shipped("scenarios/incast-star.yaml");
  const std::string out = (dir_ / "sweep").string();
  expect_bad_input(run_cli({"sweep", scenario, "--grid", "seed=1,2", "-o", out}),
                   "error: sweep: --grid seed=...: give the seeds with --seeds 1,2\n");
  expect_bad_input(run_cli({"sweep", scenario, "--grid", "duration=1ms,1ms", "-o", out}),
                   "error: sweep: 'duration=1ms,1ms': the value 1ms is given twice\n");
  expect_bad_input(run_cli({"sweep", scenario, "--grid", "duration=1ms", "--seeds", "3,3", "-o", out}),
                   "error: sweep: --seeds: seed 3 is given twice\n");
  EXPECT_FALSE(std::filesystem::exists(out));
}

// A run into a folder an earlier run wrote leaves only its own outputs: the
// InfiniBand run's ib_ports.csv and ibdiagnet.txt once stayed beside an
// Ethernet run's results as if they were its own. Files rdmasim does not
// write are left alone.
TEST_F(CliTest, ARunIntoAnUsedFolderLeavesNoStaleOutputs) {
  const fs::path out = dir_ / "mix";
  ASSERT_EQ(run_cli({"run", find_shipped("scenarios/ib-incast.yaml"), "-o", out.string()}).exit_code, 0);
  ASSERT_TRUE(fs::exists(out / "ib_ports.csv"));
  write_text(out / "notes.txt", "mine\n");
  const CliResult r = run_cli({"run", find_shipped("scenarios/incast-star.yaml"), "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(out / "ib_ports.csv"));
  EXPECT_FALSE(fs::exists(out / "ibdiagnet.txt"));
  EXPECT_TRUE(fs::exists(out / "results.json"));
  EXPECT_EQ(read_text(out / "notes.txt"), "mine\n");
}

// A run whose flows never finish prints no FCTs (zeros read as instant
// ones); one with no completed flow says why it gives no packet-hop rate.
TEST_F(CliTest, SummaryWithoutCompletedFlowsSaysNA) {
  write_text(scenario_, R"(name: late
duration: 10us
topology: {type: star, hosts: 2, link: {rate: 100Gbps, delay: 1us}}
workload: [{type: flow, src: 0, dst: 1, size: 1GB}]
)");
  const CliResult r = run_cli({"run", scenario_, "-o", (dir_ / "late").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("FCT us     n/a (no flow completed)\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("slowdown   p50"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no completed flow to count packet-hops by"), std::string::npos) << r.out;
}

// A key set twice on the command line is refused, as a duplicate key in a
// file is (the last value used to win in silence).
TEST_F(CliTest, ADuplicateSetIsRefused) {
  const std::string scenario = find_shipped("scenarios/incast-star.yaml");
  expect_bad_input(run_cli({"run", scenario, "--check", "--set", "workload.0.senders=4", "--set",
                            "workload[0].senders=6"}),
                   "error: <--set>: 'workload[0].senders': is given twice: give each key once\n");
}

// A path flag given as "" is refused, not taken for one not given.
TEST_F(CliTest, EmptyOutputPathsAreRefused) {
  expect_bad_input(run_cli({"nccl-tests", "all_reduce_perf", "--json", ""}),
                   "--json: expected a path\nRun with --help for more information.\n");
  expect_bad_input(run_cli({"train", "--trace", ""}),
                   "--trace: expected a path\nRun with --help for more information.\n");
}

// --- Progress on stderr --------------------------------------------------------------------------------

// Long runs print progress lines on stderr (RDMASIM_PROGRESS_INTERVAL=0: at
// every update, as a long run would); runs shorter than the interval print
// none, and stdout is the same either way.
TEST_F(CliTest, LongRunsPrintProgressOnStderrShortRunsNone) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> runs = {
      {{"perftest", "write_bw"}, "[perftest write_bw] "},
      {{"nccl-tests", "all_gather_perf", "-b", "1K", "-e", "4K", "--nodes", "2", "-g", "2", "--fabric",
        "ideal"},
       "[nccl-tests all_gather_perf] size 1 of 3 (1024 B), simulated "},
      {{"train", "--model", "gpt3-xl", "--micro-batches", "2", "--fabric", "ideal"}, "[train gpt3-xl] "},
      {{"run", "scenarios/demo/incast.yaml", "-o", (dir_ / "out").string()}, "[incast-32to1] simulated "},
  };
  for (const auto& [args, line] : runs) {
    SCOPED_TRACE(args[0]);
    const CliResult every = run_cli(args, 0, 0, {"RDMASIM_PROGRESS_INTERVAL=0"});
    expect_clean_exit(every);
    ASSERT_EQ(every.exit_code, 0) << every.err;
    EXPECT_NE(every.err.find(line), std::string::npos) << every.err;
    const CliResult never = run_cli(args, 0, 0, {"RDMASIM_PROGRESS_INTERVAL=3600"});
    ASSERT_EQ(never.exit_code, 0) << never.err;
    EXPECT_EQ(never.err, "");
    if (args[0] != "run") {
      EXPECT_EQ(every.out, never.out);  // run's summary has its wall time
    }
  }
  // The default interval (2 s) is far longer than a short run.
  const CliResult quick = run_cli({"perftest", "write_lat", "-n", "10"});
  EXPECT_EQ(quick.exit_code, 0);
  EXPECT_EQ(quick.err, "");
  // run -q silences it.
  const CliResult quiet = run_cli({"run", "scenarios/demo/incast.yaml", "-q", "-o", (dir_ / "out").string()},
                                  0, 0, {"RDMASIM_PROGRESS_INTERVAL=0"});
  EXPECT_EQ(quiet.exit_code, 0);
  EXPECT_EQ(quiet.err, "");
  expect_bad_input(run_cli({"perftest", "write_lat"}, 0, 0, {"RDMASIM_PROGRESS_INTERVAL=soon"}),
                   "error: RDMASIM_PROGRESS_INTERVAL: expected seconds, e.g. 5 or 0.5 (got 'soon')\n");
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

// A sweep says how far it is on stderr, down to the cells of the evaluation
// at each point; -q silences it, and stdout (the merged table) is the same.
TEST_F(CliTest, SweepPrintsProgressDownToAnEvaluationsCells) {
  write_text(scenario_, R"(name: tiny
cluster: {servers: 2, gpus_per_server: 1, nic_rate: 100Gbps, topology: leaf-spine}
fabrics: [ib-ndr, rocev2-dcqcn]
workloads: [{type: latency, iters: 20}]
)");
  const auto sweep = [&](const std::string& out, bool quiet) {
    std::vector<std::string> args = {"sweep", scenario_, "--grid", "cluster.servers=2,3",
                                     "-j",    "1",       "-o",     (dir_ / out).string()};
    if (quiet) args.emplace_back("-q");
    return run_cli(args, 0, 0, {"RDMASIM_PROGRESS_INTERVAL=0"});
  };
  const CliResult loud = sweep("loud", false);
  expect_clean_exit(loud);
  ASSERT_EQ(loud.exit_code, 0) << loud.err;
  EXPECT_NE(loud.err.find("[sweep] 0/2 cells (0 failed), evaluation 1/2 cells, "), std::string::npos)
      << loud.err;
  EXPECT_NE(loud.err.find("[sweep] 2/2 cells (0 failed), "), std::string::npos) << loud.err;
  const CliResult quiet = sweep("quiet", true);
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");
  const auto table = [&](const std::string& out) { return loud.out.substr(0, loud.out.find(out)); };
  EXPECT_EQ(table((dir_ / "loud").string()), quiet.out.substr(0, quiet.out.find((dir_ / "quiet").string())));
  EXPECT_TRUE(fs::exists(dir_ / "loud" / "point-1" / "report.html"));
}

}  // namespace
}  // namespace rdmasim

// --- InfiniBand ----------------------------------------------------------------------------------------

namespace rdmasim {
namespace {

TEST_F(CliTest, InfinibandRunWritesIbPortCounters) {
  const CliResult r = run_scenario(
      std::string(kGood) + "fabric:\n  profile: ib-ndr\n  ib: {vlarb_low: ['1:4', '2:8'], high_limit: 8}\n");
  expect_clean_exit(r);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = split(read_text(dir_ / "out" / "ib_ports.csv"), '\n');
  ASSERT_GT(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind("node,port,peer,vl,PortXmitData,PortRcvData,PortXmitPkts,PortRcvPkts,", 0), 0u);
  const auto results = nlohmann::json::parse(read_text(dir_ / "out" / "results.json"));
  EXPECT_TRUE(results["invariants"]["ok"].get<bool>());
  EXPECT_EQ(results["network"]["switch_buffer_drops"].get<uint64_t>(), 0u);
  EXPECT_GT(results["network"]["infiniband"]["flow_control_packets"].get<uint64_t>(), 0u);
}

TEST_F(CliTest, InfinibandKeysOnEthernetProfile) {
  expect_bad_input(
      run_scenario(std::string(kGood) + "fabric:\n  profile: rocev2-dcqcn\n  ib: {high_limit: 1}\n"),
      at("16:7: 'fabric.ib': applies to InfiniBand profiles (ib-ndr, ib-hdr), not 'rocev2-dcqcn'"));
}

TEST_F(CliTest, EthernetKeysOnInfinibandProfile) {
  expect_bad_input(
      run_scenario(std::string(kGood) + "fabric:\n  profile: ib-ndr\n  pfc: {enabled: true}\n"),
      at("16:8: 'fabric.pfc': applies to Ethernet profiles; 'ib-ndr' links are lossless by credit "
         "flow control (see fabric.ib, fabric.ibcc)"));
}

TEST_F(CliTest, InfinibandVlThatNoArbitrationTableServes) {
  // SL 1 -> VL 1, and the low table now serves only VL 2: VL 1 would never send.
  expect_bad_input(run_scenario(std::string(kGood) +
                                "fabric:\n  profile: ib-ndr\n  data_tc: 1\n  ib: {vlarb_low: ['2:4']}\n"),
                   at("17:7: 'fabric.ib': SL 1 maps to VL 1, which has no entry with a weight above 0 in "
                      "vlarb_high or vlarb_low"));
}

TEST_F(CliTest, InfinibandBadVlArbitrationEntry) {
  expect_bad_input(
      run_scenario(std::string(kGood) +
                   "fabric:\n  profile: ib-ndr\n  ib:\n    vlarb_high: ['0:4', '9:1']\n"),
      at("17:25: 'fabric.ib.vlarb_high[1]': expected a 'vl:weight' entry with vl 0..7 and weight 0..255 "
         "(64-byte units), e.g. 1:4"));
}

TEST_F(CliTest, InfinibandSl2VlNeedsSixteenEntries) {
  expect_bad_input(run_scenario(std::string(kGood) + "fabric:\n  profile: ib-hdr\n  ib: {sl2vl: [0, 1]}\n"),
                   at("16:15: 'fabric.ib.sl2vl': expected 16 VLs, one per SL 0..15"));
}

TEST_F(CliTest, InfinibandVlBufferBelowOnePacket) {
  expect_bad_input(
      run_scenario(std::string(kGood) + "fabric:\n  profile: ib-ndr\n  ib: {vl_buffer: 1KiB}\n"),
      at("16:19: 'fabric.ib.vl_buffer': expected auto, credit-loop or a size between one MTU packet (4138B) "
         "and 1GiB"));
  expect_bad_input(run_scenario(std::string(kGood) + "fabric:\n  profile: ib-ndr\n  ib: {vl_buffer: loop}\n"),
                   at("16:19: 'fabric.ib.vl_buffer': expected a size, e.g. 64KiB, auto or credit-loop "
                      "(expected a size with a unit, e.g. 32MiB or 4KB)"));
}

TEST_F(CliTest, SingleFlowNeedsTwoDifferentHostsOfTheTopology) {
  const std::string head = "name: t\nduration: 1ms\ntopology: {type: star, hosts: 3}\nworkload:\n";
  expect_bad_input(run_scenario(head + "  - {type: flow, src: 1, dst: 1, size: 4KiB}\n"),
                   at("5:31: 'workload[0].dst': expected a host other than src"));
  expect_bad_input(run_scenario(head + "  - {type: flow, src: 0, dst: 3, size: 4KiB}\n"),
                   at("5:31: 'workload[0].dst': expected a host index below 3"));
}

TEST_F(CliTest, EcnMarkPointMustBeNamed) {
  expect_bad_input(
      run_scenario(std::string(kGood) + "fabric:\n  profile: rocev2-dcqcn\n  ecn: {mark: egress}\n"),
      at("16:15: 'fabric.ecn.mark': expected one of: dequeue, enqueue (got \"egress\")"));
}

TEST_F(CliTest, DcqcnByteCounterIsASizeOrOff) {
  expect_bad_input(
      run_scenario(std::string(kGood) + "fabric:\n  profile: rocev2-dcqcn\n  dcqcn: {byte_counter: 0B}\n"),
      at("16:25: 'fabric.dcqcn.byte_counter': expected a positive size, or off"));
  expect_bad_input(
      run_scenario(std::string(kGood) + "fabric:\n  profile: rocev2-dcqcn\n  dcqcn: {byte_counter: none}\n"),
      at("16:25: 'fabric.dcqcn.byte_counter': expected a size, e.g. 10MB, or off (expected a size with a "
         "unit, "
         "e.g. 32MiB or 4KB)"));
}

TEST_F(CliTest, PlbBlockNeedsPlbPathSelection) {
  expect_bad_input(
      run_scenario(std::string(kGood) + "fabric:\n  profile: rocev2-dctcp\n  plb: {rounds: 2}\n"),
      at("16:8: 'fabric.plb': has no effect: fabric.path_selection is 'per-connection' (set "
         "fabric.path_selection: plb to use it)"));
}

TEST_F(CliTest, MellanoxDcqcnProfileIsRecordedInResults) {
  const CliResult r = run_scenario(std::string(kGood) + "fabric:\n  profile: rocev2-dcqcn-mlx\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto results = nlohmann::json::parse(read_text(dir_ / "out" / "results.json"));
  const auto& f = results["scenario"]["fabric"];
  EXPECT_EQ(f["ecn"]["mark"], "dequeue");
  EXPECT_EQ(f["dcqcn"]["byte_counter"], "off");
  EXPECT_EQ(f["dcqcn"]["clamp_target_rate"], false);
  EXPECT_EQ(f["dcqcn"]["start_at_first_cnp"], true);
  EXPECT_EQ(f["dcqcn"]["rate_decrease_interval"], "4us");
  EXPECT_EQ(f["dcqcn"]["increase_timer"], "300us");
}

TEST_F(CliTest, IbCongestionControlOnEthernetProfile) {
  expect_bad_input(run_scenario(std::string(kGood) + "fabric:\n  profile: rocev2-dcqcn\n  cc: ibcc\n"),
                   at("16:7: 'fabric.cc': 'ibcc' (InfiniBand congestion control) needs an InfiniBand profile "
                      "(ib-ndr, ib-hdr)"));
}

// TCP keys mean nothing to RC and RC's to iWARP's TCP; an algorithm whose
// feedback TCP does not return, or DCTCP without ECN-Echo, would run blind.
TEST_F(CliTest, TransportKeysOfTheOtherTransportAreRefused) {
  const auto with_fabric = [&](const std::string& fabric) {
    write_text(scenario_,
               "name: t\nduration: 1ms\ntopology: {type: star, hosts: 3, link: {rate: 100Gbps, "
               "delay: 1us}}\nfabric: " +
                   fabric + "\nworkload: [{type: flow, src: 0, dst: 1, size: 1KB}]\n");
    return run_cli({"run", scenario_, "--check"});
  };
  expect_bad_input(with_fabric("{profile: rocev2-dcqcn, tcp: {ecn: true}}"),
                   at("4:38: 'fabric.tcp': applies to iWARP profiles (iwarp-cubic, iwarp-dctcp), not "
                      "'rocev2-dcqcn'"));
  expect_bad_input(
      with_fabric("{profile: iwarp-cubic, rto: 1ms}"),
      at("4:37: 'fabric.rto': applies to the RC transport (RoCEv2, InfiniBand); 'iwarp-cubic' runs "
         "iWARP over TCP (see fabric.tcp)"));
  expect_bad_input(with_fabric("{profile: iwarp-cubic, cc: dcqcn}"),
                   at("4:36: 'fabric.cc': 'dcqcn' needs cnp feedback, which TCP does not return (iWARP takes "
                      "none, newreno, cubic or dctcp)"));
  expect_bad_input(with_fabric("{profile: iwarp-dctcp, tcp: {ecn: false}}"),
                   at("4:9: 'fabric.cc': 'dctcp' reads ECN-Echo: set fabric.tcp.ecn: true (and fabric.ecn at "
                      "the switches)"));
  const CliResult ok = with_fabric("{profile: iwarp-cubic, tcp: {ip_mtu: 9000, min_rto: 1ms}}");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST_F(CliTest, FaultOnUnknownNode) {
  expect_bad_input(
      run_scenario(std::string(kGood) + "faults:\n  - {at: 1us, link: 'agg9:0', action: down}\n"),
      at("15:21: 'faults[0].link': no node named 'agg9' in the topology"));
}

TEST_F(CliTest, FaultLinkWithoutPort) {
  expect_bad_input(run_scenario(std::string(kGood) + "faults:\n  - {at: 1us, link: sw0, action: down}\n"),
                   at("15:21: 'faults[0].link': expected 'node:port', e.g. agg0_0:2"));
}

// links: the node:port a fault would name, a probability, a direction seen
// from a named end; loss only where the link layer may lose a frame.
TEST_F(CliTest, LinkLossOnUnknownNodeOrPort) {
  expect_bad_input(run_scenario(std::string(kGood) + "links:\n  - {link: 'agg9:0', loss: 0.01}\n"),
                   at("15:12: 'links[0].link': no node named 'agg9' in the topology"));
  expect_bad_input(run_scenario(std::string(kGood) + "links:\n  - {link: 'sw0:3', loss: 0.01}\n"),
                   at("15:12: 'links[0].link': expected a port of 'sw0' below 3"));
  expect_bad_input(run_scenario(std::string(kGood) + "links:\n  - {link: sw0, loss: 0.01}\n"),
                   at("15:12: 'links[0].link': expected 'all' or 'node:port', e.g. agg0_0:2"));
}

TEST_F(CliTest, LinkLossValueAndDirection) {
  expect_bad_input(
      run_scenario(std::string(kGood) + "links:\n  - {loss: 1.5}\n"),
      at("15:12: 'links[0].loss': expected a fraction in [0, 1] or a percentage, e.g. 0.3 or 30% "
         "(got \"1.5\")"));
  expect_bad_input(run_scenario(std::string(kGood) + "links:\n  - {link: all}\n"),
                   at("15:5: 'links[0].loss': missing: expected loss (a share of frames), ber (a bit-error "
                      "rate) or length (the fibre), or several"));
  expect_bad_input(
      run_scenario(std::string(kGood) + "links:\n  - {loss: 0.01, direction: out}\n"),
      at("15:29: 'links[0].direction': expected both with link: all (out and in are seen from a named end, "
         "node:port)"));
  expect_bad_input(run_scenario(std::string(kGood) + "links:\n  - {ber: 0.01}\n"),
                   at("15:11: 'links[0].ber': expected a number in [0, 0.001] (got 0.01)"));
  expect_bad_input(run_scenario(std::string(kGood) + "links:\n  - {ber: 1e-12, los: 0.1}\n"),
                   at("15:18: 'links[0].los': unknown key; did you mean 'loss'? (accepted keys here: ber, "
                      "cable, direction, length, link, loss)"));
}

// A misconfiguration the profile has no use for, or on a device that does
// not exist, stops the run before it starts, at its line.
TEST_F(CliTest, MisconfigThatCannotApplyIsRefused) {
  expect_bad_input(
      run_scenario(std::string(kGood) + "misconfig:\n  - {switch: sw0, set: {pfc: {headroom: 2KB}}}\n"),
      at("15:41: 'misconfig[0].set.pfc.headroom': does not apply to profile 'ethernet-lossy': its "
         "links run lossy, not PFC"));
  expect_bad_input(run_scenario(std::string(kGood) + "misconfig:\n  - {nic: h7, set: {data_tc: 0}}\n"),
                   at("15:11: 'misconfig[0].nic': no node named 'h7' in the topology"));
}

// A lost PAUSE frame or credit update is not modelled: loss on a PFC or
// InfiniBand link is refused, naming the key; zero loss is accepted there.
TEST_F(CliTest, LinkLossOnLosslessLinksIsRefused) {
  const std::string pfc = edit(kGood, "workload:", "fabric: {profile: rocev2-dcqcn}\nworkload:");
  expect_bad_input(run_scenario(pfc + "links:\n  - {loss: 0.001}\n"),
                   at("16:12: 'links[0].loss': link loss is not modelled on PFC links (a lost PAUSE frame "
                      "would let the upstream overrun the headroom): expected 0, a lossy Ethernet profile, "
                      "or fabric.pfc.enabled: false"));
  const std::string ib = edit(kGood, "workload:", "fabric: {profile: ib-ndr}\nworkload:");
  expect_bad_input(run_scenario(ib + "links:\n  - {link: 'sw0:0', loss: 0.001}\n"),
                   at("16:27: 'links[0].loss': link loss is not modelled on InfiniBand credit links "
                      "(credits lost with a frame are not resynchronised): expected 0, or a lossy Ethernet "
                      "profile"));
  const CliResult zero = run_scenario(pfc + "links:\n  - {loss: 0}\n");
  EXPECT_EQ(zero.exit_code, 0) << zero.err;
  const CliResult off = run_scenario(edit(pfc, "rocev2-dcqcn}", "rocev2-dcqcn, pfc: {enabled: false}}") +
                                     "links:\n  - {loss: 0.001}\n");
  EXPECT_EQ(off.exit_code, 0) << off.err;
}

// A permutation of 1 GB flows with a 10 s horizon: running for minutes,
// for the signal tests below.
constexpr const char* kLongRun = R"(name: long
duration: 10s
topology: {type: fat-tree, k: 4, link: {rate: 100Gbps, delay: 1us}}
workload: [{type: permutation, size: 1GB}]
)";

// SIGINT and SIGTERM stop a run the same way: partial results written and
// marked interrupted, and an exit code of its own (4), never 0.
TEST_F(CliTest, SigintAndSigtermWritePartialResultsAndExitInterrupted) {
  write_text(scenario_, kLongRun);
  for (const int sig : {SIGINT, SIGTERM}) {
    SCOPED_TRACE(sig == SIGINT ? "SIGINT" : "SIGTERM");
    const fs::path out = dir_ / ("out" + std::to_string(sig));
    const CliResult r = run_cli({"run", scenario_, "-q", "-o", out.string()}, sig, 700);
    EXPECT_EQ(r.signal, 0);
    EXPECT_EQ(r.exit_code, 4) << r.err;
    EXPECT_NE(r.err.find("interrupted"), std::string::npos) << r.err;
    const std::string json = read_text((out / "results.json").string());
    EXPECT_NE(json.find("\"interrupted\": true"), std::string::npos) << "no results marked interrupted";
  }
}

// A sweep stopped by SIGINT or SIGTERM writes what finished (a 1 KB flow,
// at once) and marks the cell it stopped (a 10 s permutation) and those it
// never started; exit 4, as a run. It once died by the signal, exit 130,
// leaving an empty folder.
TEST_F(CliTest, AnInterruptedSweepWritesItsFinishedCells) {
  write_text(scenario_, kLongRun);
  for (const int sig : {SIGINT, SIGTERM}) {
    SCOPED_TRACE(sig == SIGINT ? "SIGINT" : "SIGTERM");
    const fs::path out = dir_ / ("sweep" + std::to_string(sig));
    const CliResult r = run_cli(
        {"sweep", scenario_, "--grid", "workload.0.size=1KB,1GB,2GB", "-j", "1", "-q", "-o", out.string()},
        sig, 700);
    EXPECT_EQ(r.signal, 0);
    EXPECT_EQ(r.exit_code, 4) << r.err;
    EXPECT_NE(r.err.find("sweep: interrupted"), std::string::npos) << r.err;
    const std::string csv = read_text(out / "sweep.csv");
    EXPECT_NE(csv.find("\n0,1KB,1,ok,"), std::string::npos) << csv;
    EXPECT_NE(csv.find("\n1,1GB,1,failed,"), std::string::npos) << csv;
    EXPECT_NE(csv.find("interrupted at "), std::string::npos) << csv;
    EXPECT_NE(csv.find("\n2,2GB,1,failed,"), std::string::npos) << csv;
    EXPECT_NE(csv.find("not run: the sweep was interrupted"), std::string::npos) << csv;
  }
}

// One flow on an 8,192-host fat-tree: about 0.6 s of setup (building the
// network) and nothing after it, for the signal tests below.
constexpr const char* kSlowSetup = R"(name: build
duration: 1us
topology: {type: fat-tree, k: 32, link: {rate: 100Gbps, delay: 1us}}
workload: [{type: flow, src: 0, dst: 1, size: 1KB}]
)";

// A stop asked for while the network is still being built ends the run
// there: exit 4, said on stderr, nothing written.
TEST_F(CliTest, SignalDuringSetupStopsBeforeRunningAndWritesNothing) {
  write_text(scenario_, kSlowSetup);
  for (const int sig : {SIGINT, SIGTERM}) {
    SCOPED_TRACE(sig == SIGINT ? "SIGINT" : "SIGTERM");
    const fs::path out = dir_ / ("out" + std::to_string(sig));
    const CliResult r = run_cli({"run", scenario_, "-q", "-o", out.string()}, sig, 50);
    EXPECT_EQ(r.signal, 0);
    EXPECT_EQ(r.exit_code, 4) << r.err;
    EXPECT_NE(r.err.find("interrupted while setting up: nothing ran"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out)) << "a run stopped in setup left its output folder";
  }
}

// Commands that write no results, and any --check, keep a signal's default
// action: a stop ends them at once, by the signal, even though the process
// catches it while the command line is parsed.
TEST_F(CliTest, SignalEndsCommandsThatDoNotStopGracefully) {
  // The check must outlast the signal's 200 ms: a check of kSlowSetup's
  // k=32 fat-tree took 190 ms on a 2026 EPYC, and exited before the signal.
  // k=48 (27,648 hosts) takes about 1 s there.
  std::string slower = kSlowSetup;
  slower.replace(slower.find("k: 32"), 5, "k: 48");
  write_text(scenario_, slower);
  // From the start: the handler may be gone before a poll could see it.
  const CliResult check = run_cli({"run", scenario_, "--check"}, SIGTERM, 200, {}, false);
  EXPECT_EQ(check.signal, SIGTERM) << check.err;
  const CliResult validate = run_cli({"validate"}, SIGINT, 200, {}, false);
  EXPECT_EQ(validate.signal, SIGINT) << validate.err;
}

// Rail leaves in scalable units each link to every spine: a topology whose
// leaf-spine links would exhaust memory is refused at the key, before it is built.
TEST_F(CliTest, RailUnitsThatWouldExhaustMemoryAreRefused) {
  expect_bad_input(
      run_scenario(
          edit(kGood, "topology:\n  type: star\n  hosts: 3\n",
               "topology:\n  type: servers\n  servers: 8192\n  servers_per_leaf: 1\n  spines: 100\n")),
      at("7:11: 'topology.spines': expected at most 1048576 leaf-spine links (this topology has 65536 rail "
         "leaves x 100 spines): fewer spines, or more servers_per_leaf"));
}

// A switch radix that cannot hold a rail leaf's servers and uplinks is
// refused at the key, with the count it needs.
TEST_F(CliTest, ARadixTooSmallForARailLeafIsRefused) {
  expect_bad_input(
      run_scenario(edit(kGood, "topology:\n  type: star\n  hosts: 3\n",
                        "topology:\n  type: servers\n  servers: 64\n  servers_per_leaf: 32\n  spines: 40\n"
                        "  switch_radix: 64\n")),
      at("8:17: 'topology.switch_radix': expected at least servers_per_leaf + spines = 72 ports (a rail "
         "leaf's links down and up)"));
}

// Inputs the loader would read forever or that no 64-bit picosecond clock
// holds are refused by name, not read or wrapped.
TEST_F(CliTest, DevicesAndUnboundedValuesAreRefused) {
  expect_bad_input(
      run_cli({"run", "/dev/zero", "--check"}),
      "error: /dev/zero: is not a regular file (a device, pipe or socket); expected a scenario file\n");
  write_text(scenario_, R"(name: devzero
duration: 1ms
topology: {type: file, file: /dev/zero}
workload: [{type: flow, src: 0, dst: 1, size: 1KB}]
)");
  expect_bad_input(
      run_cli({"run", scenario_, "--check"}),
      "error: /dev/zero: is not a regular file (a device, pipe or socket); expected a topology file\n");
  expect_bad_input(run_cli({"perftest", "write_lat", "--delay", "9000000s"}),
                   "error: perftest: --delay: time is too large: at most 100000s (about 28 hours; times are "
                   "counted in 64-bit picoseconds)\n");
  expect_bad_input(
      run_scenario(edit(kGood, "duration: ", "duration: 200000s #")),
      at("2:11: 'duration': time is too large: at most 100000s (about 28 hours; times are counted "
         "in 64-bit picoseconds) (got \"200000s\")"));
}

// --- Outputs are checked before anything runs ---------------------------------------------------------

TEST_F(CliTest, OutputPathThatIsAFileIsRefusedBeforeRunningAndLeftAlone) {
  write_text((dir_ / "taken").string(), "keep me\n");
  write_text(scenario_, kGood);
  const CliResult r = run_cli({"run", scenario_, "-q", "-o", (dir_ / "taken").string()});
  expect_bad_input(r, "error: " + scenario_ + ": output directory '" + (dir_ / "taken").string() +
                          "' exists and is not a directory\n");
  EXPECT_EQ(read_text((dir_ / "taken").string()), "keep me\n");
}

TEST_F(CliTest, TwoScenariosWritingToOneFolderRunNothing) {
  write_text(scenario_, kGood);
  const std::string twin = (dir_ / "twin.yaml").string();
  write_text(twin, kGood);  // the same name: "tiny"
  const CliResult r = run_cli({"run", scenario_, twin, "-q", "-j", "2", "-o", (dir_ / "out").string()});
  expect_bad_input(r, "error: " + twin + ": writes to '" + (dir_ / "out" / "tiny").string() + "', as " +
                          scenario_ + " does (give the scenarios different names or output.dir)\n");
  EXPECT_FALSE(fs::exists(dir_ / "out" / "tiny" / "results.json")) << "the first scenario ran anyway";
}

TEST_F(CliTest, ANameThatWouldEscapeTheOutputFolderIsRefused) {
  const CliResult r = run_scenario(edit(kGood, "name: tiny", "name: ../../x"));
  expect_bad_input(r, at("1:7: 'name': expected a name of 1-128 letters, digits, '-', '_', '.' or '+' (it "
                         "names the output folder), got '../../x'"));
}

TEST_F(CliTest, ValuesThatWereQuietlyReplacedAreRefused) {
  write_text(scenario_, kGood);
  for (const std::vector<std::string>& args : {std::vector<std::string>{"run", scenario_, "--seed", "-1"},
                                               {"perftest", "write_lat", "--iters", "0"},
                                               {"train", "--params", "0"}}) {
    const CliResult r = run_cli(args);
    expect_clean_exit(r);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find(args[args.size() - 2]), std::string::npos)
        << "the message must name the flag: " << r.err;
  }
}

// A run that cannot do anything within its duration is refused; one that
// can do only part of it warns, and --strict refuses it.
TEST_F(CliTest, FlowsThatStartAfterTheEndAreRefusedOrWarned) {
  const std::string base = R"(name: late
duration: 1ms
topology: {type: star, hosts: 3, link: {rate: 100Gbps, delay: 1us}}
workload:
  - {type: flow, src: 0, dst: 1, size: 1KB, start: 2ms}
)";
  const CliResult none = run_scenario(base);
  expect_bad_input(none,
                   "error: " + scenario_ +
                       ":5: 'workload': every flow starts at or after the end of the run (first at 2ms, "
                       "duration 1ms): raise duration or shift the flows (a flows file's time_offset)\n");
  EXPECT_FALSE(fs::exists(dir_ / "out" / "results.json"));

  const std::string partial = base + "  - {type: flow, src: 1, dst: 2, size: 1KB}\n";
  const CliResult warned = run_scenario(partial);
  EXPECT_EQ(warned.exit_code, 0) << warned.err;
  EXPECT_NE(warned.err.find("warning: " + scenario_ + ": 1 of 2 flows start at or after the end of the run"),
            std::string::npos)
      << warned.err;
  EXPECT_NE(read_text((dir_ / "out" / "results.json").string()).find("\"warnings\""), std::string::npos);

  fs::remove_all(dir_ / "out");
  const CliResult strict = run_scenario(partial, {"--strict"});
  EXPECT_EQ(strict.exit_code, 2) << strict.err;
  EXPECT_NE(strict.err.find("(--strict)"), std::string::npos) << strict.err;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "results.json"));
}

TEST_F(CliTest, LeafSpineWithBothSpinesAndRatioIsRefused) {
  const CliResult r = run_scenario(edit(kGood, "  type: star\n  hosts: 3\n",
                                        "  type: leaf-spine\n  leaves: 2\n  hosts_per_leaf: 2\n  spines: 1\n"
                                        "  oversubscription: 4\n"));
  expect_bad_input(r, at("8:21: 'topology.oversubscription': has no effect when spines is given (the ratio "
                         "follows from it): give one of the two"));
}

TEST_F(CliTest, UnknownCommandIsNamedAndVersionIsPrinted) {
  const CliResult r = run_cli({"frobnicate"});
  expect_bad_input(
      r,
      "error: unknown command 'frobnicate' (commands: run, perftest, osu, fio, demo, evaluate, bench, "
      "nccl-tests, sweep, train, profiles, schema, validate)\n");
  const CliResult v = run_cli({"--version"});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_EQ(v.out.rfind("rdmasim 0.", 0), 0u) << v.out;
  EXPECT_NE(v.out.find("(commit "), std::string::npos) << v.out;
}

// A network too large for the memory allowed is refused before it is built,
// with the estimate; the estimate is printed for every run.
TEST_F(CliTest, ANetworkAboveTheMemoryLimitIsRefusedBeforeBuilding) {
  write_text(scenario_, R"(name: big
duration: 1us
topology: {type: fat-tree, k: 16, link: {rate: 100Gbps, delay: 1us}}
workload: [{type: flow, src: 0, dst: 1, size: 1KB}]
)");
  const CliResult r =
      run_cli({"run", scenario_, "-q", "--max-memory", "10MiB", "-o", (dir_ / "out").string()});
  expect_bad_input(r,
                   "error: " + scenario_ +
                       ":3: 'topology': this network needs an estimated 16 MiB to build (320 switches x 1024 "
                       "hosts of routes, 6144 ports), more than the 10 MiB allowed by --max-memory\n");
  EXPECT_FALSE(fs::exists(dir_ / "out" / "results.json"));
  const CliResult ok =
      run_cli({"run", scenario_, "-q", "--max-memory", "1GiB", "-o", (dir_ / "out").string()});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("memory     16 MiB estimated (network and flows)"), std::string::npos) << ok.out;
}

// Flows cost memory too: an all-to-all's millions of QPs are refused from
// its spec, before one flow is made (generating k=24's 11.9 million flow
// records alone took 1.8 GB and 7 s), naming the flows, not by bad_alloc.
TEST_F(CliTest, FlowsAboveTheMemoryLimitAreRefusedBeforeTheyAreMade) {
  write_text(scenario_, R"(name: a2a
duration: 1us
topology: {type: fat-tree, k: 24, link: {rate: 100Gbps, delay: 1us}}
workload: [{type: all-to-all, size: 1KB}]
)");
  for (const bool check : {true, false}) {
    std::vector<std::string> args = {
        "run", scenario_, "-q", "--max-memory", "1GiB", "-o", (dir_ / "out").string()};
    if (check) args.emplace_back("--check");
    expect_bad_input(
        run_cli(args),
        "error: " + scenario_ +
            ":4: 'workload': this run needs an estimated 31477 MiB (31429 MiB of it for the "
            "11940480 queue pairs its flows open), more than the 1024 MiB allowed by --max-memory\n");
    EXPECT_FALSE(fs::exists(dir_ / "out"));  // the folder it created for the run is gone again
  }
}

// Where only generating the flows tells how many there are (Poisson
// arrivals from a CDF), they are counted once made, before the run.
TEST_F(CliTest, GeneratedFlowsAboveTheMemoryLimitAreRefusedBeforeTheRun) {
  write_text((dir_ / "sizes.txt").string(), "1000 0\n1000 100\n");
  write_text(scenario_, R"(name: cdf
duration: 1ms
topology: {type: fat-tree, k: 8, link: {rate: 100Gbps, delay: 1us}}
workload: [{type: cdf, cdf: sizes.txt, load: 0.5, window: 1ms}]
)");
  const CliResult r =
      run_cli({"run", scenario_, "-q", "--max-memory", "30MiB", "-o", (dir_ / "out").string()});
  expect_clean_exit(r);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(":4: 'workload': this run needs an estimated "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("queue pairs of "), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

// The summary says what the run did: one time unit, every cause of loss,
// and exactly the files written.
TEST_F(CliTest, SummaryListsDropCausesAndExactlyTheFilesWritten) {
  const CliResult r = run_scenario(std::string(kGood) + "output: {flows_csv: false}\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("simulated  "), std::string::npos);
  EXPECT_NE(r.out.find(" us  events "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("packets (buffer 0, lossless class 0, no route 0, link fault 0, corruption 0)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("outputs    " + (dir_ / "out").string() + "/{results.json,ports.csv,counters.txt}\n"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "flows.csv"));
}

// A written 0s once became the key's word (pcap end: 0s captured the whole
// run, base_rtt: 0s ran as auto); a time that can be a word must be positive.
TEST_F(CliTest, ZeroTimesAreNotReadAsTheKeysWord) {
  const std::string base = kOneFlow;
  expect_bad_input(run_scenario(base + "output: {pcap: {start: 0s, end: 0s}}\n"),
                   at("5:33: 'output.pcap.end': expected a positive time, or end"));
  expect_bad_input(run_scenario(base + "fabric: {profile: rocev2-hpcc, hpcc: {base_rtt: 0s}}\n"),
                   at("5:49: 'fabric.hpcc.base_rtt': expected a positive time, or auto"));
  expect_bad_input(run_scenario(base + "fabric: {profile: uet-nscc, nscc: {base_rtt: 0us}}\n"),
                   at("5:46: 'fabric.nscc.base_rtt': expected a positive time, or auto"));
  expect_bad_input(run_scenario(base + "fabric: {profile: uet-nscc, nscc: {target_qdelay: 0s}}\n"),
                   at("5:51: 'fabric.nscc.target_qdelay': expected a positive time, or auto"));
  expect_bad_input(run_scenario(base + "fabric: {profile: rocev2-dcqcn, pfc: {deadlock_detection: 0s}}\n"),
                   at("5:59: 'fabric.pfc.deadlock_detection': expected a positive time, or off"));
  // pcap start 0s is time zero, as written; the word still reads as before.
  const CliResult ok = run_scenario(base + "output: {pcap: {start: 0s, end: end}}\n");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  const auto results = nlohmann::json::parse(read_text(dir_ / "out" / "results.json"));
  EXPECT_EQ(results.dump().find("\"base_rtt\":\"0"), std::string::npos);
}

// A sweep writes sweep.json and sweep.csv only: output keys, in the grid,
// in --set or in the file, would be read and write nothing.
TEST_F(CliTest, SweepRefusesOutputKeys) {
  const std::string out = (dir_ / "sweep").string();
  const std::string why =
      " has no effect in a sweep, which writes only sweep.json and sweep.csv (run one cell with `rdmasim "
      "run --set ...` for its outputs)\n";
  write_text(scenario_, kGood);
  expect_bad_input(run_cli({"sweep", scenario_, "--grid", "output.flows_csv=true,false", "-o", out}),
                   "error: sweep: 'output.flows_csv'" + why);
  expect_bad_input(run_cli({"sweep", scenario_, "--grid", "output.pcap.max_packets=1,2", "-o", out}),
                   "error: sweep: 'output.pcap.max_packets'" + why);
  expect_bad_input(
      run_cli({"sweep", scenario_, "--grid", "duration=1ms,2ms", "--set", "output.dir=a", "-o", out}),
      "error: sweep: 'output.dir'" + why);
  write_text(scenario_, std::string(kGood) + "output: {timeseries: {interval: 1us}}\n");
  expect_bad_input(run_cli({"sweep", scenario_, "--grid", "duration=1ms,2ms", "-o", out}),
                   "error: sweep: " + scenario_ + ":14:9: 'output':" + why);
  EXPECT_FALSE(fs::exists(out));
}

// The flow-level model has no packets or queues to record: each per-packet
// output is refused there, timeseries as well as pcap and ports_csv.
TEST_F(CliTest, FlowModelRefusesPacketOutputs) {
  const std::string base = R"(duration: 1ms
topology: {type: star, hosts: 3}
fabric: {model: flow}
workload:
  - {type: flow, src: 0, dst: 1, size: 64KiB}
)";
  const std::string why =
      "has no effect in the flow-level model (fabric.model: flow): there are no packets "
      "or queues to record";
  expect_bad_input(run_scenario(base + "output: {timeseries: {interval: 1us}}\n"),
                   at("6:22: 'output.timeseries': " + why));
  expect_bad_input(run_scenario(base + "output: {pcap: {max_packets: 5}}\n"),
                   at("6:16: 'output.pcap': " + why));
  expect_bad_input(run_scenario(base + "output: {ports_csv: true}\n"),
                   at("6:21: 'output.ports_csv': " + why));
}

// An unlimited switch buffer keeps no per-queue or per-PG account, so
// buffer_alpha and the PFC thresholds would do nothing, nor would PFC
// itself unless a stuck receiver sends PAUSE.
TEST_F(CliTest, BufferLimitsOnAnUnlimitedBufferAreRefused) {
  const std::string base = kOneFlow;
  expect_bad_input(
      run_scenario(base + "fabric: {profile: ideal, pfc: {enabled: true, xoff: 4KB, headroom: 8KB}}\n"),
      at("5:53: 'fabric.pfc.xoff': has no effect: the switch buffer is unlimited (profile 'ideal' has no "
         "buffer limit), so no priority group fills toward XOFF"));
  expect_bad_input(
      run_scenario(base + "fabric: {profile: ideal, pfc: {enabled: true}}\n"),
      at("5:41: 'fabric.pfc.enabled': has no effect: the switch buffer is unlimited (profile 'ideal' has no "
         "buffer limit), so switches never send PAUSE (only a stuck receiver would, faults[].action: stuck); "
         "give the switches a buffer size to run PFC"));
  expect_bad_input(run_scenario(edit(base, "topology: {type: star, hosts: 3}",
                                     "topology: {type: star, hosts: 3, switch: {buffer: unlimited}}") +
                                "fabric: {profile: rocev2-dcqcn, buffer_alpha: 0.01}\n"),
                   at("5:47: 'fabric.buffer_alpha': has no effect: the switch buffer is unlimited "
                      "(topology.switch.buffer: unlimited), so no queue is ever held to alpha x the free "
                      "buffer"));
  // A stuck receiver pauses its switch whatever the buffer: PFC is used there.
  const CliResult stuck = run_scenario(base +
                                       "fabric: {profile: ideal, pfc: {enabled: true}}\n"
                                       "faults: [{at: 1us, link: 'h1:0', action: stuck}]\n");
  EXPECT_EQ(stuck.exit_code, 0) << stuck.err;
}

// The background traffic's shape has no effect without its load.
TEST_F(CliTest, BackgroundShapeWithoutLoadIsRefused) {
  expect_bad_input(run_cli({"nccl-tests", "all_reduce_perf", "-b", "1K", "-e", "1K", "--background-cdf",
                            "no-such-file.txt"}),
                   "error: nccl-tests: --background-cdf has no effect without --background-load\n");
  expect_bad_input(run_cli({"train", "--background-horizon", "10ms"}),
                   "error: train: --background-horizon has no effect without --background-load\n");
  expect_bad_input(
      run_cli({"train", "--background-load", "0", "--background-cdf", "data/cdf/alistorage2019.txt"}),
      "error: train: --background-cdf has no effect without --background-load\n");
}

// A dense model has no experts for --ep to spread.
// GPU servers with no spine leave the rails unjoined: the run is refused on
// topology.spines, saying what to set, where it named no key and read as if
// the documented default could never work.
TEST_F(CliTest, ServersWithoutSpinesNameTheSpinesKey) {
  const std::string yaml =
      "duration: 1ms\ntopology: {type: servers, servers: 2, gpus_per_server: 2}\nworkload:\n  - {type: flow, "
      "src: 0, dst: 2, size: 1KiB}\n";
  const CliResult r = run_scenario(yaml);
  expect_clean_exit(r);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(scenario_ + ":2: 'topology.spines': 0 leaves the rails (and the leaves of one rail) "
                                   "unjoined, so host 'srv0.gpu1' cannot reach host 'srv0.gpu0'"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("expected at least one spine"), std::string::npos) << r.err;
  // One spine joins them.
  const CliResult ok = run_scenario(edit(yaml, "gpus_per_server: 2}", "gpus_per_server: 2, spines: 1}"));
  expect_clean_exit(ok);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST_F(CliTest, ExpertParallelismOnADenseModelIsRefused) {
  expect_bad_input(run_cli({"train", "--model", "gpt3-xl", "--ep", "2"}),
                   "error: train: --ep has no effect: model 'gpt3-xl' is dense (no mixture-of-experts "
                   "layers); --ep applies to MoE models such as mixtral-8x7b\n");
  const CliResult r = run_scenario(R"(duration: 1s
topology: {type: servers, servers: 4, gpus_per_server: 8, spines: 1}
workload:
  - {type: training, model: gpt3-xl, ep: 2}
)");
  expect_bad_input(
      r, at("4:42: 'workload[0].ep': has no effect: model 'gpt3-xl' is dense (no mixture-of-experts "
            "layers): expected 1"));
}

// ECN marks nothing reads would change only the mark counters.
TEST_F(CliTest, EcnWhereNothingReactsToMarksIsRefused) {
  const std::string base = kOneFlow;
  expect_bad_input(run_scenario(base + "fabric: {profile: ethernet-lossy, ecn: {kmin: 10KB}}\n"),
                   at("5:47: 'fabric.ecn.kmin': has no effect: nothing reacts to ECN marks on "
                      "'ethernet-lossy' (congestion control 'none' reads no feedback): set fabric.cc to one "
                      "that reads them (dcqcn, dctcp)"));
  expect_bad_input(run_scenario(base + "fabric: {profile: rocev2-hpcc, ecn: {enabled: true}}\n"),
                   at("5:47: 'fabric.ecn.enabled': has no effect: nothing reacts to ECN marks on "
                      "'rocev2-hpcc' (congestion control 'hpcc' reads int-echo feedback): set fabric.cc to "
                      "one that reads them (dcqcn, dctcp)"));
  // With a congestion control that reads them, the marks are used.
  const CliResult ok =
      run_scenario(base + "fabric: {profile: ethernet-lossy, cc: dctcp, ecn: {kmin: 10KB, kmax: 10KB}}\n");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

// A timeseries that starts after the run samples nothing; an `up` on a link
// that is up changes nothing.
TEST_F(CliTest, TimeseriesAfterTheEndAndUpOnAnUpLinkAreRefused) {
  const std::string base = edit(kOneFlow, "duration: 1ms", "duration: 100us");
  expect_bad_input(run_scenario(base + "output: {timeseries: {interval: 1us, start: 200us}}\n"),
                   at("5:45: 'output.timeseries.start': expected a start before the end of the run (duration "
                      "100us)"));
  expect_bad_input(
      run_scenario(base + "faults: [{at: 1us, link: 'sw0:0', action: up}]\n"),
      at("5:43: 'faults[0].action': up at 1us on a link that is up then (no earlier fault takes it "
         "down): it would change nothing"));
  // Named from its other end, after a down: the link is down, the up is used.
  const CliResult ok = run_scenario(base +
                                    "faults:\n  - {at: 1us, link: 'sw0:0', action: down}\n"
                                    "  - {at: 5us, link: 'h0:0', action: up}\n");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  expect_bad_input(
      run_scenario(base + "faults:\n  - {at: 1us, link: 'sw0:0', action: down}\n"
                          "  - {at: 5us, link: 'h0:0', action: up}\n"
                          "  - {at: 9us, node: sw0, action: up}\n"),
      at("8:34: 'faults[2].action': up at 9us on 'sw0', whose links are up then (no earlier fault "
         "takes them down): it would change nothing"));
}

}  // namespace
}  // namespace rdmasim
