// libFuzzer target for the rdmasim command line: any argument list must end
// with exit code 0 (good) or 2 (bad input, with a message) when checked,
// never with another code, an exception escaping, a sanitizer report or a
// hang. The input is the argument list, one argument per line; the first
// names the subcommand (run, perftest, nccl-tests, ...), as on a shell.
//
// Every input runs check-only (cli::command_line with check_only, what
// `rdmasim run --check` does for run): all the checks a real invocation makes
// before it builds the network — CLI11's parse and ranges, each command's own
// flag checks, the scenarios `run` names, output paths — and then no network
// is built, nothing simulated or written, so an input takes milliseconds.
// Inputs run in a temporary folder holding links to the repository's
// scenarios/ and data/ (seeds name scenarios/...); that nothing appears in it
// is checked after each.
//
// Paths: arguments may name any file to read, except the special files that
// never end or block (/dev, /proc, /sys): an input naming one is skipped,
// also through YAML escapes in --set values.
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/app.h"
#include "cli/commands.h"
#include "fuzz_support.h"

namespace rdmasim {
namespace {

namespace fs = std::filesystem;

// Argument lists are short; longer inputs only slow the fuzzer down.
constexpr size_t kMaxFuzzInputBytes = 2048;

// Where each input runs: a temporary folder with links to what seeds name.
const fs::path& work_dir() {
  static const fs::path dir = [] {
    std::string tmpl = (fs::temp_directory_path() / "rdmasim_fuzz_cli_XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) fuzz::die("cannot create", tmpl);
    for (const char* shared : {"scenarios", "data"})
      fs::create_directory_symlink(fuzz::repo_root() / shared, fs::path(tmpl) / shared);
    return fs::path(tmpl);
  }();
  return dir;
}

// The work folder holds only its two links: a check wrote nothing there.
bool work_dir_untouched() {
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(work_dir())) {
    (void)e;
    ++entries;
  }
  return entries == 2;
}

// Where the harness reports, as libFuzzer's -close_fd_mask=3 closes stderr.
std::FILE* report() {
  static std::FILE* f = [] {
    std::FILE* dup = ::fdopen(::dup(2), "w");
    return dup != nullptr ? dup : stderr;
  }();
  return f;
}

[[noreturn]] void finding(const std::string& what, const std::vector<std::string>& args) {
  std::fprintf(report(), "fuzz_cli: %s for: rdmasim", what.c_str());
  for (const std::string& a : args) std::fprintf(report(), " '%s'", a.c_str());
  std::fprintf(report(), "\n");
  std::fflush(report());
  std::abort();
}

bool special_path(const std::string& arg) {
  for (const char* s : {"/dev", "/proc", "/sys", "\\x", "\\u", "\\U"})
    if (arg.find(s) != std::string::npos) return true;
  return false;
}

}  // namespace
}  // namespace rdmasim

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  (void)rdmasim::fuzz::InWorkDir::start_dir_fd();
  rdmasim::fuzz::absolutize_artifact_flags(argc, argv);
  (void)rdmasim::report();  // before libFuzzer closes stderr
  (void)rdmasim::work_dir();
  std::atexit([] {
    std::error_code ec;
    std::filesystem::remove_all(rdmasim::work_dir(), ec);
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rdmasim;
  if (size > kMaxFuzzInputBytes) return 0;
  std::vector<std::string> args(1);
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == '\n')
      args.emplace_back();
    else
      args.back() += static_cast<char>(data[i]);
  }
  for (const std::string& a : args)
    if (special_path(a)) return 0;
  // As a shell would pass them: an argument ends at a NUL byte.
  std::vector<const char*> argv{"rdmasim"};
  for (const std::string& a : args) argv.push_back(a.c_str());

  static const std::atomic<bool> never{false};
  cli::Process process;
  process.version = "rdmasim (fuzz_cli)";
  process.interrupt = &never;
  int code = -1;
  {
    const fuzz::InWorkDir in_work_dir(work_dir());
    try {
      code = cli::command_line(static_cast<int>(argv.size()), argv.data(), process, /*check_only=*/true);
    } catch (const std::exception& e) {
      finding(std::string("uncaught exception (") + e.what() + ")", args);
    } catch (...) {
      finding("uncaught exception of unknown type", args);
    }
  }
  if (code != cli::kExitOk && code != cli::kExitBadInput)
    finding("exit code " + std::to_string(code) + " (a check exits 0 or 2)", args);
  if (!work_dir_untouched()) finding("a check wrote into its working folder", args);
  return 0;
}
