// The rdmasim subcommands. Each returns the process exit code: 0 success,
// 1 runtime failure, 2 bad input (nothing run, nothing written), 3 a violated
// simulation invariant, 4 interrupted by SIGINT/SIGTERM (partial results
// written, marked "interrupted"), 5 the fabric deadlocked (results written,
// run.status "deadlock").
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "config/shipped_path.h"

namespace CLI {
class App;
}

namespace rdmasim::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitInvariant = 3;
inline constexpr int kExitInterrupted = 4;
// The fabric deadlocked (a cycle of PFC-paused queues): results are written,
// the run did not finish.
inline constexpr int kExitDeadlock = 5;

// How a command is carried out, beyond its own flags.
struct Context {
  // Check every input as a real invocation does before it builds the network
  // (flags, scenario files, output paths), then stop: nothing is simulated
  // or written.
  bool check_only = false;
  // With check_only, `run` also sets each scenario up (builds its network
  // and workloads, as `run --check` does) to catch what only that finds:
  // flows starting after the end, PFC headroom above the buffer, --strict.
  // The CLI fuzzer leaves it off: a fuzzed fat-tree must not cost a build.
  bool check_setup = false;
  // Long runs print a progress line on stderr at most this often; the first
  // comes after one interval, so a shorter run prints none.
  std::chrono::steady_clock::duration progress_every = std::chrono::seconds(2);
  // Polled by commands that write results (run, demo): when it becomes true
  // they stop and write what they have, marked interrupted.
  const std::atomic<bool>* interrupt = nullptr;
};

struct RunOptions {
  std::vector<std::string> scenarios;
  std::string out_dir;  // empty: the scenario's output.dir
  long long seed = -1;  // -1: the scenario's seed
  std::vector<std::string> sets;
  int jobs = 1;
  bool quiet = false;
  bool strict = false;  // a warning found before the run (e.g. flows after the end) refuses it
  std::string
      max_memory;  // e.g. 8GiB: refuse a network whose build is estimated above it (default: MemAvailable)
};

int run_command(const RunOptions& o, const Context& ctx);

// sweep <scenario> --grid ... (sweep_command.cpp).
struct SweepCli {
  std::string scenario, out_dir;
  std::vector<std::string> grid, sets;
  std::vector<long long> seeds;
  int jobs = 1;
  bool quiet = false;
};
void add_sweep_subcommand(CLI::App& app, SweepCli& o);
int sweep_command(const SweepCli& o, const Context& ctx);
int demo_command(const std::string& out_root, int jobs, const Context& ctx);

// evaluate <file> (evaluate_command.cpp): the fabric comparison and its report.
struct EvaluateCli {
  std::string file;
  std::string builtin_text;  // demo: the shipped evaluation's text (file names it)
  std::string out_dir;       // empty: out/<name>
  int jobs = 1;
  bool quiet = false;
};
int evaluate_command(const EvaluateCli& o, const Context& ctx);
int bench_command(const std::vector<std::string>& only, bool list, bool scale, const Context& ctx);
// The scenario key reference (docs/SCENARIO.md), generated from the schema.
[[nodiscard]] std::string key_reference();
int schema_command();

// perftest <test> (perftest_command.cpp).
struct PerftestCli {
  std::string test, size, profile = "ethernet-lossy", rate, delay, sw_latency, mtu;
  int iters = -1, depth = 128, switches = 1;
  bool cut_through = false;
};
void add_perftest_subcommand(CLI::App& app, PerftestCli& o);
int perftest_command(const PerftestCli& o, const Context& ctx);

// osu <benchmark> (osu_command.cpp).
struct OsuCli {
  std::string bench, sizes, profile = "ib-ndr", rate, mtu, eager_threshold, rendezvous;
  int iterations = 0, warmup = -1, window = 64, np = 2, hosts_per_leaf = 32;
  bool full = false;
  long long seed = 1;
};
void add_osu_subcommand(CLI::App& app, OsuCli& o);
int osu_command(const OsuCli& o, const Context& ctx);

// fio (fio_command.cpp): NVMe-oF over RDMA as fio reports it.
struct FioCli {
  std::string name = "rdmasim", rw = "randread", bs = "4k", runtime = "10ms", ramp_time = "0",
              output_format = "normal", profile = "ib-ndr";
  int iodepth = 1, numjobs = 1, rwmixread = 50, initiators = 1, targets = 1;
  long long seed = 1;
};
void add_fio_subcommand(CLI::App& app, FioCli& o);
int fio_command(const FioCli& o, const Context& ctx);

// The flags nccl-tests and train share (cluster_flags.h). Defaults a user
// comparing fabrics does not trip over (docs/COLLECTIVES.md has the
// measurements): the rail-optimized cluster AI clusters are built as (NVIDIA
// DGX SuperPOD), where every fabric's 32 MiB AllReduce reaches 304-350 GB/s
// busbw with NCCL's 1 QP per connection, unlike one leaf per server, where
// ECMP collisions cut RoCE to 57 GB/s against InfiniBand's 308; and the RoCE
// profile built for these 400G clusters, on the same hardware terms as
// ib-ndr (cut-through, NIC and switch latencies).
struct ClusterCli {
  std::string fabric = "rocev2-dcqcn-400g", topo = "rail", rate, mtu, cable_delay, gpu_nic_path = "pxb";
  std::string nccl_version = "2.30";
  std::string host_cpu = "intel";
  double oversub = 1.0;
  int qps = 1;
  // Rail-optimized clusters: 0 = not given (32 servers per leaf on 64-port
  // switches, DGX SuperPOD's scalable unit); refused with --topo leaf-spine.
  int servers_per_leaf = 0, switch_radix = 0;
  bool sharp = false;  // fabric.sharp.enabled on a profile without it
  long long seed = 1;
  double background_load = 0;
  // Empty: not given (data/cdf/alistorage2019.txt and 100ms with
  // --background-load; without it, giving either is refused).
  std::string background_cdf;
  std::string background_horizon;
};

// nccl-tests <name>_perf (nccl_tests_command.cpp).
struct NcclTestsCli {
  std::string test;
  std::string minbytes = "32M", maxbytes = "32M", chunk = "auto";
  long long stepfactor = 2;
  int gpus = 8, nodes = 4, root = 0, channels = 0, iters = 1;
  bool no_pxn = false;
  std::string algo = "auto", proto = "auto", gpu = "h100";
  std::string nvlink_bw, nvlink_latency, step_latency, net_latency, launch_latency, json;
  ClusterCli cluster;
};
void add_nccl_tests_subcommand(CLI::App& app, NcclTestsCli& o);
int nccl_tests_command(const NcclTestsCli& o, const Context& ctx);

// train: one training iteration (train_command.cpp).
struct TrainCli {
  std::string model = "gpt3-xl";
  double params = 0;
  int layers = 0, hidden = 0, seq = 0, micro_batch = 1, micro_batches = 8;
  int tp = 2, pp = 2, dp = 4, ep = 1, gpus = 8;
  double peak_tflops = 989.4, mfu = 0.40;
  std::string bucket = "25MB", trace, dp_algo = "auto", nccl_proto = "auto";
  ClusterCli cluster;
};
void add_train_subcommand(CLI::App& app, TrainCli& o);
int train_command(const TrainCli& o, const Context& ctx);

}  // namespace rdmasim::cli
