// Collectives and training as workload types of a scenario: the YAML form
// gives the numbers of the command-line tools, faults apply to them, they
// share the fabric with flows, and their keys are read strictly.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "collective/collective_workload.h"
#include "config/error.h"
#include "config/scenario.h"
#include "fabric/profiles.h"
#include "report/results.h"
#include "run/experiment.h"
#include "run/front_ends.h"
#include "training/presets.h"
#include "training/training_workload.h"

namespace rdmasim {
namespace {

std::string shipped(const std::string& name) {
  return std::string(RDMASIM_SOURCE_DIR) + "/scenarios/" + name;
}

const CollectiveWorkload& collective_of(const Experiment& e, size_t i = 0) {
  return dynamic_cast<const CollectiveWorkload&>(*e.workloads().at(i));
}

// What `rdmasim nccl-tests all_reduce_perf -b 2M -e 2M --fabric <profile> --algo <algo> --topo leaf-spine`
// runs.
NcclTestsOptions cli_allreduce(const std::string& profile, Algo algo) {
  NcclTestsOptions o;
  o.algo = algo;
  o.min_bytes = o.max_bytes = 2 << 20;
  o.fabric = find_profile(profile).config;
  o.fabric.rc.mtu = 4096;
  return o;
}

TEST(WorkloadScenarios, CollectiveYamlGivesTheNcclTestsRow) {
  struct Case {
    const char* file;
    const char* profile;
    Algo algo;
    double golden_time_us, golden_busbw;  // the 2097152 B rows of tests/golden/nccl-all_reduce-*
  };
  for (const Case& c :
       {Case{"nccl-allreduce-ring-rocev2-dcqcn-mlx.yaml", "rocev2-dcqcn-mlx", Algo::kRing, 163.73, 24.82},
        Case{"nccl-allreduce-tree-ib-ndr.yaml", "ib-ndr", Algo::kTree, 100.51, 40.43}}) {
    SCOPED_TRACE(c.file);
    Experiment e(load_scenario_file(shipped(c.file)));
    e.run();
    const CollectiveWorkload& yaml = collective_of(e);
    ASSERT_TRUE(yaml.finished());
    EXPECT_EQ(e.invariant_error(), "");
    const NcclTestsResult cli = run_nccl_tests(cli_allreduce(c.profile, c.algo));
    ASSERT_EQ(cli.rows.size(), 1u);
    EXPECT_EQ(yaml.duration().us(), cli.rows[0].time_us);
    EXPECT_EQ(yaml.busbw_gbps(), cli.rows[0].busbw);
    EXPECT_EQ(yaml.fabric_bytes(), cli.rows[0].fabric_bytes);
    EXPECT_NEAR(yaml.duration().us(), c.golden_time_us, 0.005);
    EXPECT_NEAR(yaml.busbw_gbps(), c.golden_busbw, 0.005);
  }
}

TEST(WorkloadScenarios, TrainingYamlGivesTheTrainIteration) {
  Experiment e(load_scenario_file(shipped("training-gpt3-xl-ib-ndr.yaml")));
  e.run();
  const auto& yaml = dynamic_cast<const TrainingWorkload&>(*e.workloads().at(0));
  ASSERT_TRUE(yaml.finished());
  EXPECT_EQ(e.invariant_error(), "");
  // `rdmasim train --model gpt3-xl --fabric ib-ndr` with its defaults.
  TrainingRunOptions o;
  o.train.model = model_preset("gpt3-xl");
  o.train.model.micro_batch = 1;
  o.train.model.micro_batches = 8;
  o.train.par = ParallelConfig{2, 2, 4, 1};
  o.cluster.gpus_per_server = 8;
  o.cluster.topology = ClusterTopology::kRail;
  o.fabric = find_profile("ib-ndr").config;
  o.fabric.rc.mtu = 4096;
  const TrainingResult cli = run_training_iteration(o);
  const TrainingResult& r = yaml.result();
  EXPECT_EQ(r.iteration, cli.iteration);
  EXPECT_EQ(r.exposed_comm, cli.exposed_comm);
  EXPECT_EQ(r.comm_time, cli.comm_time);
  EXPECT_EQ(r.tp.count, cli.tp.count);
  EXPECT_EQ(r.dp.total, cli.dp.total);
  EXPECT_EQ(r.trace.size(), cli.trace.size());
  EXPECT_NEAR(r.iteration.us() / 1e3, 115.337, 0.0005);  // tests/golden/train-gpt3-xl-ib-ndr
  EXPECT_EQ(r.tp.count, 768);
}

TEST(WorkloadScenarios, PerftestYamlGivesThePerftestTable) {
  Experiment e(load_scenario_file(shipped("perftest-write-lat-ib-ndr.yaml")));
  e.run();
  const auto& yaml = dynamic_cast<const PerftestWorkload&>(*e.workloads().at(0));
  ASSERT_TRUE(yaml.finished());
  EXPECT_EQ(e.invariant_error(), "");
  // `rdmasim perftest write_lat --fabric ib-ndr`.
  PerftestOptions o;
  o.fabric = find_profile("ib-ndr").config;
  o.link = o.fabric.link;
  const PerftestResult cli = run_perftest(o);
  const PerftestResult r = yaml.result();
  ASSERT_EQ(r.latency_us.size(), 1000u);
  EXPECT_EQ(r.latency_us, cli.latency_us);
  EXPECT_NEAR(r.latency_us[0], 1.05, 0.005);  // tests/golden/perftest-write_lat-ib-ndr
}

TEST(WorkloadScenarios, LinkFailureInFaultsAppliesToACollective) {
  Experiment clean(load_scenario_file(shipped("nccl-allreduce-tree-ib-ndr.yaml")));
  clean.run();
  Experiment failed(load_scenario_file(shipped("nccl-allreduce-tree-ib-ndr-link-failure.yaml")));
  failed.run();
  Experiment no_shield(load_scenario_file(shipped("nccl-allreduce-tree-ib-ndr-link-failure.yaml"),
                                          {"fabric.ib.shield=false"}));
  no_shield.run();
  ASSERT_TRUE(collective_of(clean).finished());
  ASSERT_TRUE(collective_of(failed).finished());
  ASSERT_TRUE(collective_of(no_shield).finished());
  const QpStats a = clean.fabric().verbs().total_stats();
  const QpStats b = failed.fabric().verbs().total_stats();
  const QpStats c = no_shield.fabric().verbs().total_stats();
  EXPECT_EQ(a.retransmitted_packets, 0u);
  EXPECT_EQ(a.timeouts, 0u);
  // With SHIELD (the profile's) the switch sends the packets queued for the
  // dead port, and every later one, by another port: nothing is lost and the
  // collective takes no longer on the narrower fabric (0.16 us longer while
  // VL buffers held only one credit loop, before 2026-11-30).
  EXPECT_EQ(b.retransmitted_packets, 0u);
  EXPECT_EQ(b.timeouts, 0u);
  // Without it the packets lost on the link are resent after a 67 ms local
  // ACK timeout (two QPs, one per tree, lose packets and time out together).
  EXPECT_EQ(c.retransmitted_packets, 70u);
  EXPECT_EQ(c.timeouts, 2u);
  EXPECT_NEAR(collective_of(clean).duration().us(), 100.51, 0.005);
  EXPECT_LT(collective_of(failed).duration(), collective_of(clean).duration() + Time::from_us(1));
  EXPECT_NEAR(collective_of(failed).duration().us(), 100.506, 0.0005);
  EXPECT_NEAR(collective_of(no_shield).duration().us(), 67207.69, 0.005);
  EXPECT_TRUE(failed.fabric().sm_stats().installs.empty()) << "done before the SM's new LFTs";
  ASSERT_EQ(no_shield.fabric().sm_stats().installs.size(), 1u);
  EXPECT_EQ(no_shield.fabric().sm_stats().installs[0], Time::from_us(620));  // 20 + 100 + 500 us
  EXPECT_EQ(failed.invariant_error(), "");
  EXPECT_EQ(no_shield.invariant_error(), "");
}

const char* kRoce = R"(name: t
duration: 10ms
topology: {type: leaf-spine, leaves: 4, hosts_per_leaf: 8, spines: 8, link: {rate: 400Gbps, delay: 1us}}
fabric: {profile: rocev2-dcqcn-mlx, mtu: 4KiB}
workload:
  - {type: collective, op: all_reduce, size: 2MiB}
)";

TEST(WorkloadScenarios, LinkFlapSlowsARoceCollective) {
  Experiment clean(load_scenario_text(kRoce, "t.yaml"));
  clean.run();
  Experiment flap(load_scenario_text(std::string(kRoce) +
                                         "faults:\n  - {at: 20us, link: \"leaf0:9\", action: down}\n"
                                         "  - {at: 200us, link: \"leaf0:9\", action: up}\n",
                                     "t.yaml"));
  flap.run();
  ASSERT_TRUE(collective_of(clean).finished());
  ASSERT_TRUE(collective_of(flap).finished());
  EXPECT_EQ(clean.fabric().verbs().total_stats().retransmitted_packets, 0u);
  EXPECT_EQ(flap.fabric().verbs().total_stats().retransmitted_packets, 245u);
  EXPECT_EQ(flap.fabric().verbs().total_stats().timeouts, 7u);
  EXPECT_NEAR(collective_of(flap).duration().us(), 4301.37, 0.005);
  EXPECT_GT(collective_of(flap).duration(), 20 * collective_of(clean).duration());
}

// Every setting is used or refused: PXN moves point-to-point traffic only.
TEST(WorkloadScenarios, PxnIsRefusedWhereItHasNoEffect) {
  const std::string base = std::string(kRoce).substr(0, std::string(kRoce).find("  - {type: collective"));
  try {
    (void)load_scenario_text(base + "  - {type: collective, op: all_reduce, size: 2MiB, pxn: false}\n",
                             "t.yaml");
    FAIL() << "pxn on all_reduce was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(
        std::string(e.what()).find("'workload[0].pxn': has no effect: PXN carries point-to-point traffic"),
        std::string::npos)
        << e.what();
  }
  const Scenario ok =
      load_scenario_text(base + "  - {type: collective, op: alltoall, size: 2MiB, pxn: false}\n", "t.yaml");
  EXPECT_FALSE(static_cast<const CollectiveParams&>(*ok.workloads[0].params).req.pxn);
}

// The hosts' CPU vendor reaches NCCL's tuner across servers; on one server
// NCCL looks at the GPU, so the key is refused there.
TEST(WorkloadScenarios, HostCpuIsReadAndRefusedOnOneServer) {
  const std::string base = std::string(kRoce).substr(0, std::string(kRoce).find("  - {type: collective"));
  const Scenario amd = load_scenario_text(
      base + "  - {type: collective, op: all_reduce, size: 2MiB, host_cpu: amd}\n", "t.yaml");
  EXPECT_EQ(static_cast<const CollectiveParams&>(*amd.workloads[0].params).comm.host_cpu, HostCpu::kAmd);
  const auto refused = [&](const std::string& item, const std::string& what) {
    try {
      (void)load_scenario_text(base + item, "t.yaml");
      ADD_FAILURE() << item << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  refused("  - {type: collective, op: all_reduce, size: 2MiB, gpus_per_server: 32, host_cpu: intel}\n",
          "'workload[0].host_cpu': has no effect on one server");
  refused("  - {type: collective, op: all_reduce, size: 2MiB, host_cpu: arm}\n", "'workload[0].host_cpu'");
}

// A workload's NVLink follows its gpu_arch (NCCL's effective rate, cluster.h
// GpuClass) unless the scenario sets it.
TEST(WorkloadScenarios, NvlinkRateFollowsTheGpuArch) {
  const std::string base = std::string(kRoce).substr(0, std::string(kRoce).find("  - {type: collective"));
  const auto nvlink = [&](const std::string& extra) {
    const Scenario s = load_scenario_text(
        base + "  - {type: collective, op: all_reduce, size: 2MiB" + extra + "}\n", "t.yaml");
    return static_cast<const CollectiveParams&>(*s.workloads[0].params).nvlink.rate;
  };
  EXPECT_EQ(nvlink(""), Rate::from_bps(2'966'400'000'000));  // hopper, the default: 370.8 GB/s
  EXPECT_EQ(nvlink(", gpu_arch: ampere"), Rate::from_gbps(240 * 8));
  EXPECT_EQ(nvlink(", gpu_arch: volta"), Rate::from_gbps(120 * 8));
  EXPECT_EQ(nvlink(", gpu_arch: blackwell"), Rate::from_bps(5'774'400'000'000));
  EXPECT_EQ(nvlink(", gpu_arch: ampere, nvlink: {rate: 2400Gbps}"), Rate::from_gbps(300 * 8));
}

// kRoce without its workload, and what NCCL's tuner picks for a 1 MiB
// AllReduce on it with `extra` keys.
std::string roce_head() {
  return std::string(kRoce).substr(0, std::string(kRoce).find("  - {type: collective"));
}
std::pair<Algo, Proto> tuned_1mib(const std::string& extra) {
  Experiment e(load_scenario_text(
      roce_head() + "  - {type: collective, op: all_reduce, size: 1MiB" + extra + "}\n", "t.yaml"));
  e.run();
  EXPECT_TRUE(collective_of(e).finished()) << extra;
  return {collective_of(e).algo_run(), collective_of(e).proto_run()};
}

// gpu_nic_path reaches NCCL's tuner: on 4 x 8 H100 its 1 MiB AllReduce runs
// tree/LL128 at pxb (the default) and leaves LL128 out at phb, where NCCL
// does not enable it.
TEST(WorkloadScenarios, GpuNicPathDecidesWhetherTheTunerTakesLl128) {
  const std::string base = roce_head();
  const auto proto = [&](const std::string& extra) { return tuned_1mib(extra).second; };
  EXPECT_EQ(proto(""), Proto::kLL128);
  EXPECT_EQ(proto(", gpu_nic_path: pxn"), Proto::kLL128);
  EXPECT_NE(proto(", gpu_nic_path: phb"), Proto::kLL128);
  EXPECT_NE(proto(", gpu_nic_path: pxn, gpu_arch: ampere"), Proto::kLL128);
}

// nccl_version reaches the tuner and what runs: on 4 x 8 H100 a 4 MiB
// AllReduce goes NVLSTree under 2.26 (its 14 us network hop) and tree/LL128
// under 2.30 (20.9 us; Tuner.NvlsTreeNetworkHopFollowsTheNcclRelease), and
// the training workload takes the key too; a release without NVLS is
// refused where it is written.
TEST(WorkloadScenarios, NcclVersionDecidesNvlsTreesHop) {
  const auto run4 = [&](const std::string& extra) {
    Experiment e(load_scenario_text(
        roce_head() + "  - {type: collective, op: all_reduce, size: 4MiB" + extra + "}\n", "t.yaml"));
    e.run();
    EXPECT_TRUE(collective_of(e).finished()) << extra;
    return collective_of(e).algo_run();
  };
  EXPECT_EQ(run4(""), Algo::kTree);
  EXPECT_EQ(run4(", nccl_version: \"2.30.7\""), Algo::kTree);
  EXPECT_EQ(run4(", nccl_version: \"2.26.2\""), Algo::kNvlsTree);
  try {
    (void)load_scenario_text(
        roce_head() + "  - {type: collective, op: all_reduce, size: 4MiB, nccl_version: \"2.16\"}\n",
        "t.yaml");
    ADD_FAILURE() << "2.16 was taken";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "workload[0].nccl_version");
    EXPECT_NE(std::string(e.what()).find("expected an NCCL release from 2.18 to 2.30"), std::string::npos)
        << e.what();
  }
}

// NCCL_PROTO's and NCCL_ALGO's lists and exclusions reach the tuner; what
// the model cannot do is refused where it is written.
TEST(WorkloadScenarios, NcclProtoAndAlgoListsReachTheTuner) {
  const std::string base = roce_head();
  const auto proto = [&](const std::string& extra) { return tuned_1mib(extra).second; };
  // NCCL_PROTO's list: a listed LL128 is taken even at phb (NCCL counts it
  // as asked for), and an exclusion leaves the tuner the others.
  EXPECT_EQ(proto(", gpu_nic_path: phb, proto: \"^LL\""), Proto::kLL128);
  EXPECT_EQ(proto(", proto: \"LL,Simple\""), proto(", gpu_nic_path: phb"));
  // Echoed as NCCL spells it; what the model cannot do is refused where it is written.
  const Scenario listed = load_scenario_text(
      base + "  - {type: collective, op: all_reduce, size: 1MiB, proto: \"^ll128\"}\n", "t.yaml");
  EXPECT_EQ(nccl_proto_of(static_cast<const CollectiveParams&>(*listed.workloads[0].params).req),
            proto_bit(Proto::kLL) | proto_bit(Proto::kSimple));
  try {
    (void)load_scenario_text(
        base + "  - {type: collective, op: all_reduce, size: 1MiB, proto: allreduce:LL}\n", "t.yaml");
    ADD_FAILURE() << "a per-collective prefix was taken";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("t.yaml:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("per-collective prefixes are not modelled"), std::string::npos)
        << e.what();
  }
  // NCCL_ALGO too: without NVLink SHARP the tuner picks among ring and tree.
  const auto algo = [&](const std::string& extra) {
    Experiment e(load_scenario_text(
        base + "  - {type: collective, op: all_reduce, size: 16MiB" + extra + "}\n", "t.yaml"));
    e.run();
    EXPECT_TRUE(collective_of(e).finished()) << extra;
    return collective_of(e).algo_run();
  };
  EXPECT_EQ(algo(""), Algo::kNvlsTree);
  EXPECT_NE(algo(", algo: \"^nvls,nvlstree\""), Algo::kNvlsTree);
  EXPECT_EQ(algo(", algo: \"^nvls,nvlstree\""), algo(", algo: \"ring,tree\""));
  try {
    (void)load_scenario_text(
        base + "  - {type: collective, op: all_gather, size: 1MiB, algo: \"tree,nvls\"}\n", "t.yaml");
    ADD_FAILURE() << "a list with nothing for all_gather was taken";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("leaves no algorithm that runs all_gather"), std::string::npos)
        << e.what();
  }
  try {
    (void)load_scenario_text(
        base + "  - {type: collective, op: all_reduce, size: 1MiB, algo: sharp, proto: \"^Simple\"}\n",
        "t.yaml");
    ADD_FAILURE() << "sharp without Simple was taken";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("CollNet runs the Simple protocol only"), std::string::npos)
        << e.what();
  }
}

// A training workload's gpu_nic_path reaches the tuner of its collectives
// too: a small model's data-parallel buckets over 4 servers run LL128 at
// pxb and not at phb, so their AllReduce time differs.
TEST(WorkloadScenarios, TrainingTakesTheGpuNicPath) {
  const std::string base = std::string(kRoce).substr(0, std::string(kRoce).find("  - {type: collective"));
  const auto dp_time = [&](const std::string& extra) {
    Experiment e(
        load_scenario_text(base +
                               "  - {type: training, model: gpt3-xl, params: 2e7, layers: 4, hidden: "
                               "512, tp: 1, pp: 1, dp: 32, gpus_per_server: 8" +
                               extra + "}\n",
                           "t.yaml"));
    e.run();
    const auto& t = dynamic_cast<const TrainingWorkload&>(*e.workloads().at(0));
    EXPECT_TRUE(t.finished()) << extra;
    return t.result().dp.total;
  };
  EXPECT_EQ(dp_time(""), dp_time(", gpu_nic_path: pxb"));
  EXPECT_NE(dp_time(""), dp_time(", gpu_nic_path: phb"));
  // nccl_proto reaches the same requests: leaving LL128 out is what phb's rule does,
  // and LL forced on every bucket is slower than the tuner's choice.
  EXPECT_EQ(dp_time(", nccl_proto: \"^LL128\""), dp_time(", gpu_nic_path: phb"));
  EXPECT_GT(dp_time(", nccl_proto: LL"), dp_time(""));
}

TEST(WorkloadScenarios, CollectiveSharesTheFabricWithFlows) {
  Experiment alone(load_scenario_text(kRoce, "t.yaml"));
  alone.run();
  Experiment mixed(load_scenario_text(
      std::string(kRoce) + "  - {type: incast, senders: 8, receiver: 1, size: 1MiB, placement: sequential}\n",
      "t.yaml"));
  mixed.run();
  ASSERT_TRUE(mixed.all_done());
  EXPECT_EQ(mixed.completed(), 8u);
  EXPECT_EQ(mixed.invariant_error(), "");
  // The incast into host 1 takes its NIC, which the ring also needs.
  EXPECT_GT(collective_of(mixed).duration(), collective_of(alone).duration());
}

TEST(WorkloadScenarios, CollectiveRunReportsWhatItMeasured) {
  Experiment e(load_scenario_file(shipped("nccl-allreduce-ring-rocev2-dcqcn-mlx.yaml")));
  e.run();
  const std::string text = summary_text(e);
  EXPECT_NE(
      text.find("collective all_reduce ring/LL128: 2097152 B over 32 ranks in 163.73 us, algbw 12.81 GB/s, "
                "busbw 24.82 GB/s\n"),
      std::string::npos)
      << text;
  EXPECT_EQ(text.find("FCT us"), std::string::npos) << text;  // no flows to describe
  const auto j = results_json(e);
  ASSERT_EQ(j["workload_results"].size(), 1u);
  EXPECT_EQ(j["workload_results"][0]["busbw_GBps"].get<double>(), collective_of(e).busbw_gbps());
  // LL128 lines: 120 B of data in every 128 B (16252928 B of data).
  EXPECT_EQ(j["workload_results"][0]["fabric_bytes"].get<int64_t>(), 17522688);
  EXPECT_EQ(j["scenario"]["workload"][0]["channels"], "auto");
}

TEST(WorkloadScenarios, NcclTestsSweepIsTheSameOnAnyNumberOfThreads) {
  NcclTestsOptions o = cli_allreduce("rocev2-dcqcn-mlx", Algo::kRing);
  o.min_bytes = 1 << 10;
  o.step_factor = 32;
  const NcclTestsResult one = run_nccl_tests(o, 1);
  const NcclTestsResult two = run_nccl_tests(o, 2);
  ASSERT_EQ(one.rows.size(), 3u);
  ASSERT_EQ(two.rows.size(), 3u);
  for (size_t i = 0; i < one.rows.size(); ++i) {
    EXPECT_EQ(one.rows[i].bytes, two.rows[i].bytes);
    EXPECT_EQ(one.rows[i].time_us, two.rows[i].time_us);
    EXPECT_EQ(one.rows[i].fabric_bytes, two.rows[i].fabric_bytes);
  }
  EXPECT_EQ(one.avg_busbw, two.avg_busbw);
}

std::string load_error(const std::string& workload_item) {
  try {
    (void)load_scenario_text(
        "name: t\ntopology: {type: leaf-spine, leaves: 2, hosts_per_leaf: 8}\nworkload:\n" + workload_item,
        "t.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(WorkloadScenarios, CollectiveAndTrainingKeysAreStrict) {
  // root means nothing to an AllReduce: refused with the reason, at its value.
  EXPECT_EQ(load_error("  - {type: collective, op: all_reduce, size: 1MiB, root: 3}\n"),
            "t.yaml:4:58: 'workload[0].root': has no effect: only broadcast and reduce have a root");
  EXPECT_EQ(load_error("  - {type: collective, op: all_gather, algo: tree, size: 1MiB}\n").substr(0, 47),
            "t.yaml:4:46: 'workload[0].algo': expected an al");
  EXPECT_EQ(load_error("  - {type: collective, op: broadcast, size: 1MiB, root: 16}\n"),
            "t.yaml:4:57: 'workload[0].root': expected a rank below 16");
  EXPECT_EQ(load_error("  - {type: collective, op: all_reduce, size: 1MiB, gpus_per_server: 3}\n"),
            "t.yaml:4:69: 'workload[0].gpus_per_server': expected a divisor of the topology's 16 hosts (one "
            "GPU per host)");
  // A training iteration starts with the run: `start` is not one of its keys.
  EXPECT_EQ(load_error("  - {type: training, model: gpt3-xl, start: 1ms}\n").substr(0, 45),
            "t.yaml:4:38: 'workload[0].start': unknown key");
  EXPECT_EQ(
      load_error("  - {type: training, model: gpt3-xl, tp: 2, pp: 2, dp: 8}\n"),
      "t.yaml:4:5: 'workload[0]': the layout needs 32 GPUs (4 servers of 8), the topology has 16 hosts");
  EXPECT_EQ(load_error("  - {type: training, model: gpt4}\n").substr(0, 59),
            "t.yaml:4:29: 'workload[0].model': expected one of: gpt3-175");
  // A flow key on a collective.
  EXPECT_EQ(load_error("  - {type: collective, op: all_reduce, size: 1MiB, senders: 2}\n").substr(0, 47),
            "t.yaml:4:52: 'workload[0].senders': unknown key");
}

}  // namespace
}  // namespace rdmasim
