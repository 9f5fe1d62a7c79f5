// rdmasim evaluate: the matrix is deterministic whatever the threads, a
// resumed evaluation reuses finished cells and writes the same bytes, every
// number the decision cites is a figure of evaluation.json, and bad input is
// refused where it is written.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include "config/error.h"
#include "config/scenario.h"
#include "evaluate/cells.h"
#include "evaluate/claims.h"
#include "evaluate/evaluation.h"
#include "evaluate/matrix.h"
#include "evaluate/report.h"
#include "evaluate/slurp.h"
#include "evaluate/summary.h"
#include "run/experiment.h"
#include "topo/topology.h"

namespace rdmasim {
namespace {

namespace fs = std::filesystem;

// Two fabrics x three workloads x two conditions on 2 servers x 2 GPUs.
const char* kSmall = R"(name: small
cluster: {servers: 2, gpus_per_server: 2, nic_rate: 100Gbps, topology: leaf-spine, cable_delay: 500ns}
duration: 20ms
fabrics:
  - ib-ndr
  - {profile: rocev2-dcqcn, name: roce}
workloads:
  - {type: latency, iters: 50}
  - {type: incast, senders: 3, size: 64KiB}
  - {type: collective, name: ar, op: all_reduce, sizes: [64KiB]}
conditions:
  - baseline
  - {name: load-30, background: {load: 30%, cdf: storage}}
weights: {latency: 1, tail_latency: 1, incast: 1, collective: 2, resilience: 1, cost: 1}
assumptions: {workloads: [latency]}
)";

using test::slurp;

class EvaluateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("rdmasim_eval_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
            "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

struct Written {
  std::vector<CellOutcome> outcomes;
  std::string json, md;
};

Written evaluate(const Evaluation& ev, const std::vector<EvalCell>& cells, const fs::path& out, int jobs) {
  Written w;
  w.outcomes = run_matrix(cells, out.string(), jobs, {}, nullptr);
  const EvalSummary s = summarize(ev, cells, w.outcomes);
  const EvalReportInput in{ev, cells, w.outcomes, s};
  w.json = evaluation_json(in).dump(2);
  w.md = report_markdown(in);
  return w;
}

TEST_F(EvaluateTest, ParallelMatrixIsByteIdenticalToEachCellAloneAndResumes) {
  const Evaluation ev = load_evaluation_text(kSmall, "small.yaml");
  const std::vector<EvalCell> cells = eval_cells(ev);
  size_t matrix = 0;
  size_t assumed = 0;
  for (const auto& c : cells) (c.knob.empty() ? matrix : assumed) += 1;
  ASSERT_EQ(matrix, 2u * 3u * 2u);
  EXPECT_GT(assumed, 0u);  // the latency workload under each fabric's unsourced defaults
  check_cells(ev, cells);

  const Written par = evaluate(ev, cells, dir_ / "par", 2);
  for (size_t i = 0; i < cells.size(); ++i) {
    EXPECT_TRUE(par.outcomes[i].ok) << cells[i].id << ": " << par.outcomes[i].error;
    EXPECT_TRUE(par.outcomes[i].ran);
  }
  // Each cell alone, on one thread, into another folder: the same results.json.
  for (const EvalCell& c : cells) {
    const auto alone = run_matrix({c}, (dir_ / "alone").string(), 1, {}, nullptr);
    ASSERT_TRUE(alone[0].ok) << c.id;
    // Identical but for the scenario file's own path.
    auto alone_json =
        nlohmann::json::parse(slurp(fs::path(cell_dir((dir_ / "alone").string(), c)) / "results.json"));
    auto par_json =
        nlohmann::json::parse(slurp(fs::path(cell_dir((dir_ / "par").string(), c)) / "results.json"));
    alone_json["scenario"].erase("file");
    par_json["scenario"].erase("file");
    EXPECT_EQ(alone_json.dump(), par_json.dump()) << c.id;
  }
  // Interrupted and restarted: a cell without its finished marker runs
  // again, the others are reused, and the evaluation is the same bytes.
  fs::remove(fs::path(cell_dir((dir_ / "par").string(), cells[3])) / "cell.json");
  const Written again = evaluate(ev, cells, dir_ / "par", 2);
  size_t ran = 0;
  for (const auto& o : again.outcomes) ran += o.ran ? 1 : 0;
  EXPECT_EQ(ran, 1u);
  EXPECT_TRUE(again.outcomes[3].ran);
  EXPECT_EQ(again.json, par.json);
  EXPECT_EQ(again.md, par.md);
  // A cell another build of rdmasim finished (its marker names that build,
  // or none, as markers did before builds were recorded) runs again: the
  // other build may model the same scenario differently.
  const fs::path marker = fs::path(cell_dir((dir_ / "par").string(), cells[5])) / "cell.json";
  auto m = nlohmann::json::parse(slurp(marker));
  EXPECT_EQ(m.at("build").get<std::string>(), simulator_build());
  EXPECT_EQ(simulator_build().size(), 16u);
  m["build"] = "0123456789abcdef";
  std::ofstream(marker) << m.dump();
  m.erase("build");
  std::ofstream(fs::path(cell_dir((dir_ / "par").string(), cells[6])) / "cell.json") << m.dump();
  const Written rebuilt = evaluate(ev, cells, dir_ / "par", 2);
  std::vector<size_t> rerun;
  for (size_t i = 0; i < rebuilt.outcomes.size(); ++i)
    if (rebuilt.outcomes[i].ran) rerun.push_back(i);
  EXPECT_EQ(rerun, (std::vector<size_t>{5, 6}));
  EXPECT_EQ(rebuilt.json, par.json);
  // A changed cell (another seed) is not taken for the old one.
  Evaluation other = ev;
  other.seeds = {2};
  const auto other_cells = eval_cells(other);
  EXPECT_NE(other_cells[0].id, cells[0].id);
}

// The report's numbers: four significant digits; a large one in full (a
// reader compares 301400 USD by eye, not 3.014e+05); a tiny one keeps its
// exponent.
TEST(ReportNumber, FourDigitsLargeOnesInFull) {
  EXPECT_EQ(report_number(301420.0), "301400");
  EXPECT_EQ(report_number(50100.0), "50100");
  EXPECT_EQ(report_number(174.44), "174.4");
  EXPECT_EQ(report_number(2e-6), "2e-06");
  EXPECT_EQ(report_number(0.0), "0");
  EXPECT_EQ(report_number(-12249.0), "-12250");
  EXPECT_EQ(report_number(std::numeric_limits<double>::infinity()), "inf");
}

// Every number the decision section cites is followed by the figure ids it
// is the geometric mean of (the claims': the mean), or by [total.<fabric>];
// both are in evaluation.json.
TEST_F(EvaluateTest, EveryDecisionNumberIsAFigureOfEvaluationJson) {
  const Evaluation ev = load_evaluation_text(kSmall, "small.yaml");
  const std::vector<EvalCell> cells = eval_cells(ev);
  const Written w = evaluate(ev, cells, dir_, 2);
  const auto j = nlohmann::json::parse(w.json);

  // The decision and the claims sections, where numbers carry citations.
  const size_t from = w.md.find("## Decision");
  const size_t to = w.md.find("## Total cost of ownership", from + 1);
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(to, std::string::npos);
  ASSERT_NE(w.md.find("## Claims, answered from these numbers"), std::string::npos);
  // The claims table gives each answer; the evidence with its citations follows it.
  const size_t claims_table = w.md.find("| # | claim | verdict | answer |");
  const size_t claim1_evidence = w.md.find("**Claim 1, evidence.** ib-ndr ");
  ASSERT_NE(claims_table, std::string::npos);
  ASSERT_NE(claim1_evidence, std::string::npos);
  EXPECT_GT(claim1_evidence, claims_table);
  const std::string decision = w.md.substr(from, to - from);
  const size_t claims_at = decision.find("## Claims, answered from these numbers");
  const std::regex cited(R"((-?[0-9][0-9.e+-]*)( [A-Za-z/% ]+)? \[([^\]]+)\])");
  int checked = 0;
  for (auto it = std::sregex_iterator(decision.begin(), decision.end(), cited); it != std::sregex_iterator();
       ++it) {
    const double printed = std::stod((*it)[1]);
    const std::string cite = (*it)[3];
    // A metric's unit in a table ("latency p50 [us]"), not a citation: ids have dots.
    if (cite.find('.') == std::string::npos) continue;
    if (const size_t slash = cite.find(" / "); slash != std::string::npos) {
      // A ratio of two figures (resilience: a condition against its baseline).
      const double num = j["figures"][cite.substr(0, slash)]["mean"].get<double>();
      const double den = j["figures"][cite.substr(slash + 3)]["mean"].get<double>();
      EXPECT_NEAR(printed, num / den, num / den * 5e-4) << (*it)[0];
      ++checked;
      continue;
    }
    std::istringstream ids(cite);
    std::string id;
    double sum = 0;
    double log_sum = 0;
    int n = 0;
    while (ids >> id) {
      if (id.rfind("low:", 0) == 0 || id.rfind("high:", 0) == 0) {  // an assumption range's end
        const bool low = id[0] == 'l';
        const double v = j["figures"][id.substr(low ? 4 : 5)]["assumed_range"][low ? 0 : 1].get<double>();
        sum += v;
        log_sum += std::log(v);
      } else if (id.rfind("scale.", 0) == 0) {  // a point of the scale sweep
        ASSERT_TRUE(j["scale"].contains(id)) << id;
        sum += j["scale"][id]["value"].get<double>();
      } else if (id.rfind("trial:", 0) == 0) {  // a tuning trial, worse by this many percent
        for (const auto& [f, t] : j["tuning"]["fabrics"].items())
          for (const auto& tr : t["trials"])
            if (tr["cell"] == id.substr(6)) sum += tr["worse_by"].get<double>() * 100;
      } else if (id.rfind("total.", 0) == 0) {
        sum += j["total"][id.substr(6)].get<double>();
      } else if (id.rfind("tuning.", 0) == 0) {  // tuning.<fabric>.sensitive
        sum += j["tuning"]["fabrics"][id.substr(7, id.size() - 17)]["sensitive_count"].get<double>();
      } else if (id.rfind("cost.", 0) == 0) {  // cost.<fabric>.total
        sum += j["cost"]["fabrics"][id.substr(5, id.size() - 11)]["total"].get<double>();
      } else {
        ASSERT_TRUE(j["figures"].contains(id)) << "cited figure not in evaluation.json: " << id;
        const double v = j["figures"][id]["mean"].get<double>();
        sum += v;
        log_sum += std::log(v);
      }
      ++n;
    }
    ASSERT_GT(n, 0);
    // A criterion's value is the geometric mean of its figures; a claim's, their mean.
    const bool criterion = static_cast<size_t>(it->position()) < claims_at;
    const double expected = criterion && n > 1 ? std::exp(log_sum / n) : sum / n;
    EXPECT_NEAR(printed, expected, std::abs(expected) * 5e-4) << (*it)[0];
    ++checked;
  }
  // latency, tail, incast, collective for two fabrics, plus the total.
  EXPECT_GE(checked, 9);
  // And the cell a figure comes from holds it in its own metrics.
  for (const auto& c : j["cells"]) {
    if (!c["ok"].get<bool>() || !c["mis_set"].is_null() || c["condition"] == "scale") continue;
    for (const auto& [metric, v] : c["metrics"].items()) {
      std::string id = c["fabric"].get<std::string>() + "." + c["workload"].get<std::string>();
      if (!c["point"].get<std::string>().empty()) id += "-" + c["point"].get<std::string>();
      id += "." + c["condition"].get<std::string>() + "." + metric;
      ASSERT_TRUE(j["figures"].contains(id)) << id;
      EXPECT_DOUBLE_EQ(j["figures"][id]["mean"].get<double>(), v.get<double>()) << id;  // one seed
    }
  }
  // A collective cell's NCCL model is the one its run reports, and its table
  // shows it beside the simulated time.
  int models = 0;
  for (const auto& c : j["cells"]) {
    if (!c["ok"].get<bool>() || c["workload"] != "ar" || !c["metrics"].contains("time_us")) continue;
    std::ifstream in(dir_ / c["results"].get<std::string>());
    const auto r = nlohmann::json::parse(in);
    const double model = r["workload_results"][0]["nccl_model_us"].get<double>();
    ASSERT_GT(model, 0);
    EXPECT_DOUBLE_EQ(c["metrics"]["nccl_model_us"].get<double>(), model);
    ++models;
  }
  EXPECT_GT(models, 0);
  EXPECT_NE(w.md.find("| time [us] | NCCL's model [us] |"), std::string::npos);
}

std::string edit(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

// A summary with room for `fabrics` fabrics (costs, tuning, totals): the
// claims answered from figures a test writes, no cell having run.
EvalSummary claims_summary(size_t fabrics) {
  EvalSummary s;
  s.cost.resize(fabrics);
  s.tuning.resize(fabrics);
  s.total.resize(fabrics);
  return s;
}

std::vector<ClaimAnswer> all_claims(const Evaluation& ev, const EvalSummary& s) {
  const std::vector<EvalCell> cells;
  const std::vector<CellOutcome> outcomes;
  return answer_claims(EvalReportInput{ev, cells, outcomes, s});
}

// A figure as summarize() would write it, one seed.
EvalFigure made_figure(const std::string& id, size_t fabric, size_t workload, size_t condition,
                       const std::string& metric, const std::string& unit, double v) {
  EvalFigure x;
  x.id = id;
  x.fabric = fabric;
  x.workload = workload;
  x.condition = condition;
  x.metric = metric;
  x.unit = unit;
  x.lower_is_better = unit != "GB/s";
  x.mean = x.min = x.max = v;
  x.seeds = 1;
  return x;
}

// The cost model recomputes from the file: a changed price moves the cost
// section (and nothing else when cost carries no weight).
TEST_F(EvaluateTest, ChangingAPriceChangesTheCostLinesAndNothingElse) {
  const std::string no_cost_weight = edit(kSmall, ", cost: 1}", "}");
  const std::string pricier = no_cost_weight + "cost: {roce: {nic: 4000}}\n";
  const Evaluation a = load_evaluation_text(no_cost_weight, "small.yaml");
  const Evaluation b = load_evaluation_text(pricier, "small.yaml");
  const auto cells = eval_cells(a);
  ASSERT_EQ(cells.size(), eval_cells(b).size());
  auto ja = nlohmann::json::parse(evaluate(a, cells, dir_, 2).json);
  auto jb = nlohmann::json::parse(evaluate(b, eval_cells(b), dir_, 2).json);
  const auto& la = ja["cost"]["fabrics"]["roce"];
  const auto& lb = jb["cost"]["fabrics"]["roce"];
  const double nics = ja["cost"]["bill_of_materials"]["nics"].get<double>();
  EXPECT_EQ(nics, 4);
  EXPECT_DOUBLE_EQ(lb["total"].get<double>() - la["total"].get<double>(),
                   nics * (4000 - la["inputs"]["nic"].get<double>()));
  EXPECT_EQ(ja["cost"]["fabrics"]["ib-ndr"], jb["cost"]["fabrics"]["ib-ndr"]);
  // Claim 10 (TCO) quotes the totals; the rest of the claims must not move.
  EXPECT_NE(ja["claims"][9], jb["claims"][9]);
  for (auto* j : {&ja, &jb}) {
    j->erase("cost");
    (*j)["claims"].erase(9);
    (*j)["evaluation"].erase("text");
  }
  EXPECT_EQ(ja.dump(), jb.dump());
}

// For the browser check (ctest report-browser-evaluate): the small
// evaluation's report.html where RDMASIM_EVAL_REPORT says.
TEST_F(EvaluateTest, WritesReportForTheBrowserCheck) {
  const char* path = std::getenv("RDMASIM_EVAL_REPORT");
  if (path == nullptr) GTEST_SKIP() << "RDMASIM_EVAL_REPORT not set";
  const Evaluation ev = load_evaluation_text(kSmall, "small.yaml");
  const std::vector<EvalCell> cells = eval_cells(ev);
  const auto outcomes = run_matrix(cells, dir_.string(), 2, {}, nullptr);
  const EvalSummary s = summarize(ev, cells, outcomes);
  std::ofstream(path) << report_html(EvalReportInput{ev, cells, outcomes, s});
}

void expect_refused(const std::string& text, const std::string& where, const std::string& what);

// Optics priced by class: the cluster names its host and switch link
// classes, the cells' scenarios carry them, and the cost prices those links
// by class (the bill counts them apart from the unnamed host/fabric links).
TEST_F(EvaluateTest, NamedCableClassesArePricedByClass) {
  const std::string text =
      "name: optics\n"
      "cluster: {servers: 2, gpus_per_server: 2, nic_rate: 400Gbps, topology: leaf-spine, cable_delay: 10ns, "
      "host_cable: dac, fabric_cable: dr4}\n"
      "fabrics: [ib-ndr]\n"
      "workloads: [{type: latency, iters: 20}]\n"
      "cost: {infiniband: {link_dr4: 1000}}\n";
  const Evaluation ev = load_evaluation_text(text, "optics.yaml");
  const std::vector<EvalCell> cells = eval_cells(ev);
  check_cells(ev, cells);
  const std::string& sc = cells.front().scenario;
  EXPECT_NE(sc.find("cable: dac"), std::string::npos) << sc;
  EXPECT_NE(sc.find("cable: dr4"), std::string::npos) << sc;
  const Written w = evaluate(ev, cells, dir_, 1);
  const auto j = nlohmann::json::parse(w.json);
  const auto& bom = j["cost"]["bill_of_materials"];
  // 2 leaves (one per server) x 2 hosts; at 1:1 each leaf has 2 spines.
  EXPECT_EQ(bom["host_links"], 0);
  EXPECT_EQ(bom["fabric_links"], 0);
  EXPECT_EQ(bom["cable_links"]["dac"], 4);
  EXPECT_EQ(bom["cable_links"]["dr4"], 4);
  EXPECT_EQ(bom["switch_ports_used"], 4 + 2 * 4);
  double dac_usd = -1, dr4_usd = -1;
  for (const auto& l : j["cost"]["fabrics"]["ib-ndr"]["lines"]) {
    if (l["item"] == "Links (dac)") dac_usd = l["usd"];
    if (l["item"] == "Links (dr4)") dr4_usd = l["usd"];
  }
  EXPECT_EQ(dac_usd, 4 * cable_link_info("dac").value);
  EXPECT_EQ(dr4_usd, 1000.0 * bom["cable_links"]["dr4"].get<double>());
  EXPECT_NE(w.md.find("link_dac"), std::string::npos);  // the inputs table lists the classes used
  EXPECT_NE(w.md.find("4 dac links"), std::string::npos);

  // A distance beyond the switch links' class is refused at the condition
  // unless the condition names a class that reaches it.
  expect_refused(text + "conditions: [baseline, {name: metro, distance: 10km}]\n", "conditions: metro",
                 "a dr4 link reaches 500 m");
  const Evaluation metro = load_evaluation_text(
      text + "conditions: [baseline, {name: metro, distance: 10km, cable: lr8}]\n", "optics.yaml");
  const std::vector<EvalCell> metro_cells = eval_cells(metro);
  check_cells(metro, metro_cells);
  EXPECT_NE(metro_cells.back().scenario.find("cable: lr8"), std::string::npos);
  expect_refused(text + "conditions: [baseline, {name: c, incast: {senders: 2, size: 1MiB}, cable: lr8}]\n",
                 "e.yaml:6", "has no effect without a distance");
  // A price for a class the cluster does not use would change nothing.
  expect_refused(edit(text, "link_dr4: 1000", "link_zr: 1000"), "cost.infiniband.link_zr", "no zr links");
  expect_refused(edit(text, "host_cable: dac", "host_cable: dac2"), "cluster.host_cable", "expected one of");
}

// The scale sweep: the cluster's own size comes from the matrix, the others
// from cells of their own; each point is the workload's key metric there.
TEST_F(EvaluateTest, ScaleSweepAddsClusterSizes) {
  const Evaluation ev =
      load_evaluation_text(std::string(kSmall) + "scale: {servers: [4, 1], workloads: [ar]}\n", "small.yaml");
  EXPECT_EQ(ev.scale.servers, (std::vector<int>{1, 4}));
  const auto cells = eval_cells(ev);
  check_cells(ev, cells);
  size_t scale_cells = 0;
  for (const auto& c : cells) scale_cells += c.servers > 0 ? 1 : 0;
  EXPECT_EQ(scale_cells, 2u * 2u);  // two fabrics x two other sizes
  const auto j = nlohmann::json::parse(evaluate(ev, cells, dir_, 2).json);
  // 2 servers is the cluster itself: the same number as the matrix's figure.
  EXPECT_DOUBLE_EQ(j["scale"]["scale.roce.ar-64KiB.2servers.busbw_GBps"]["value"].get<double>(),
                   j["figures"]["roce.ar-64KiB.baseline.busbw_GBps"]["mean"].get<double>());
  for (const char* n : {"1", "4"}) {
    const std::string id = std::string("scale.ib-ndr.ar-64KiB.") + n + "servers.busbw_GBps";
    ASSERT_TRUE(j["scale"].contains(id)) << id;
    const std::string cell = std::string("ib-ndr.ar-64KiB.scale-") + n + "servers.s1";
    const auto r = nlohmann::json::parse(slurp(dir_ / "cells" / cell / "results.json"));
    EXPECT_DOUBLE_EQ(j["scale"][id]["value"].get<double>(),
                     r["workload_results"][0]["busbw_GBps"].get<double>());
    EXPECT_EQ(r["topology"]["hosts"].get<int>(), std::stoi(n) * 2);
  }
  expect_refused(std::string(kSmall) + "scale: {servers: [2], workloads: [ar]}\n", "e.yaml:16",
                 "other server counts than the cluster's");
}

// Two entries of one profile that differ only in path selection answer the
// ECMP claim (8) from their permutation completion times.
TEST_F(EvaluateTest, PathSelectionPairAnswersTheEcmpClaim) {
  const char* text = R"(name: paths
cluster: {servers: 4, gpus_per_server: 2, nic_rate: 100Gbps, topology: leaf-spine}
fabrics:
  - {profile: rocev2-dctcp, name: ecmp}
  - {profile: rocev2-dctcp, name: plb, set: {fabric.path_selection: plb}}
workloads: [{type: permutation, size: 1MiB}]
)";
  const Evaluation ev = load_evaluation_text(text, "paths.yaml");
  const auto cells = eval_cells(ev);
  check_cells(ev, cells);
  const auto j = nlohmann::json::parse(evaluate(ev, cells, dir_, 2).json);
  const auto& claim = j["claims"][7];
  ASSERT_EQ(claim["claim"], 8);
  const double ecmp = j["figures"]["ecmp.permutation.baseline.completion_us"]["mean"].get<double>();
  const double plb = j["figures"]["plb.permutation.baseline.completion_us"]["mean"].get<double>();
  EXPECT_EQ(claim["verdict"], plb < ecmp ? "supported" : "contradicted");
  EXPECT_NE(claim["evidence"].get<std::string>().find("[plb.permutation.baseline.completion_us]"),
            std::string::npos);
  // The pair differs in path selection alone: nothing else to name.
  EXPECT_EQ(claim["answer"].get<std::string>().find("transport"), std::string::npos) << claim["answer"];
}

// A condition that never reaches a workload (a failed spine link under a
// latency test between two GPUs of one rail) leaves rows equal to baseline;
// the report says so, where a workload the link carries (an incast across
// the rails) gets no such line.
TEST_F(EvaluateTest, TheReportSaysWhenAConditionNeverReachedAWorkload) {
  const char* yaml = R"(name: untouched
cluster: {servers: 2, gpus_per_server: 2, nic_rate: 100Gbps, topology: rail-optimized, cable_delay: 500ns}
duration: 20ms
fabrics: [ib-ndr, {profile: rocev2-dcqcn, name: roce}]
workloads:
  - {type: latency, iters: 20}
  - {type: incast, senders: 3, size: 256KiB}
conditions:
  - baseline
  - {name: link-down, link_down: {at: 5us, link: auto}}
  - {name: load-30, background: {load: 30%, cdf: storage}}
weights: {latency: 1, incast: 1, resilience: 1}
)";
  const Evaluation ev = load_evaluation_text(yaml, "untouched.yaml");
  const std::vector<EvalCell> cells = eval_cells(ev);
  const Written w = evaluate(ev, cells, dir_ / "out", 2);
  const std::string note = "Under link-down every figure equals its baseline's";
  const size_t latency = w.md.find("Workload: latency");
  const size_t incast = w.md.find("Workload: incast");
  ASSERT_NE(latency, std::string::npos);
  ASSERT_NE(incast, std::string::npos);
  ASSERT_LT(latency, incast);
  const size_t at = w.md.find(note, latency);
  ASSERT_NE(at, std::string::npos) << w.md.substr(latency, incast - latency);
  EXPECT_LT(at, incast) << "the note belongs to the latency test";
  EXPECT_EQ(w.md.find(note, incast), std::string::npos) << "the incast crosses the failed link";
  // The failover claim reads the slowdowns under the failure alone, where
  // resilience takes the load too.
  const auto j = nlohmann::json::parse(w.json);
  const auto& claim = j["claims"][8];
  ASSERT_EQ(claim["claim"], 9);
  const std::string e = claim["evidence"].get<std::string>();
  EXPECT_NE(e.find("under the failure"), std::string::npos) << e;
  EXPECT_EQ(e.find(".load-30."), std::string::npos) << e;
}

// An incast condition sends into the host the measured perftest receives on,
// and counts as load for the tail-latency criterion.
// A link-down condition reports how each fabric came through it: the
// figures are the incident report's, equal to each fabric's modelled
// detection and reroute delays (the SM's on InfiniBand, loss of signal and
// BGP on Ethernet). 16 MiB, so that the collective outlasts the last of
// them (Ethernet's local repair, 1 ms after detection).
TEST_F(EvaluateTest, LinkDownConditionReportsDetectionAndRerouteTimes) {
  const char* yaml = R"(name: failure
cluster: {servers: 2, gpus_per_server: 2, nic_rate: 100Gbps, topology: leaf-spine, cable_delay: 500ns}
duration: 20ms
fabrics:
  - {profile: ib-ndr, set: {fabric.ib.sm_detection_delay: 30us, fabric.ib.sm_compute_time: 70us}}
  - {profile: rocev2-dcqcn, name: roce, set: {fabric.reroute.link_detect: 10us, fabric.reroute.bgp_convergence: 200us}}
workloads:
  - {type: collective, name: ar, op: all_reduce, sizes: [16MiB]}
conditions:
  - baseline
  - {name: link-down, link_down: {at: 20us, link: auto}}
weights: {collective: 1, resilience: 1}
)";
  const Evaluation ev = load_evaluation_text(yaml, "failure.yaml");
  const std::vector<EvalCell> cells = eval_cells(ev);
  const Written w = evaluate(ev, cells, dir_ / "out", 2);
  const EvalSummary s = summarize(ev, cells, w.outcomes);
  auto figure = [&](const std::string& id) {
    for (const EvalFigure& f : s.figures)
      if (f.id == id) return f.mean;
    ADD_FAILURE() << "no figure " << id;
    return -1.0;
  };
  // InfiniBand's switches see the port leave Active and route around it at
  // once (SHIELD); the SM's LFTs follow its detection and compute times.
  EXPECT_DOUBLE_EQ(figure("ib-ndr.ar-16MiB.link-down.detected_after_us"), 0.0);
  EXPECT_DOUBLE_EQ(figure("ib-ndr.ar-16MiB.link-down.repaired_after_us"), 0.0);
  EXPECT_DOUBLE_EQ(figure("ib-ndr.ar-16MiB.link-down.rerouted_after_us"), 100.0);
  EXPECT_DOUBLE_EQ(figure("roce.ar-16MiB.link-down.repaired_after_us"), 10.0 + 1000.0);
  EXPECT_DOUBLE_EQ(figure("roce.ar-16MiB.link-down.detected_after_us"), 10.0);
  EXPECT_DOUBLE_EQ(figure("roce.ar-16MiB.link-down.rerouted_after_us"), 210.0);
  EXPECT_NE(w.json.find("\"roce.ar-16MiB.link-down.rerouted_after_us\""), std::string::npos);
  // Claim 9 (IB fails over faster) is answered from these reroute times. The
  // file set the SM's timings and two of Ethernet's; the local repair time
  // left at its unsourced default is named as what the answer rests on.
  const auto j = nlohmann::json::parse(w.json);
  const auto& claim = j["claims"][8];
  ASSERT_EQ(claim["claim"], 9);
  const std::string e = claim["evidence"].get<std::string>();
  const std::string answer = claim["answer"].get<std::string>();
  EXPECT_NE(e.find("[ib-ndr.ar-16MiB.link-down.rerouted_after_us]"), std::string::npos) << e;
  EXPECT_NE(e.find("[roce.ar-16MiB.link-down.rerouted_after_us]"), std::string::npos) << e;
  EXPECT_NE(answer.find("route around the link before Ethernet"), std::string::npos) << answer;
  EXPECT_NE(e.find("[ib-ndr.ar-16MiB.link-down.repaired_after_us]"), std::string::npos) << e;
  EXPECT_EQ(claim["verdict"], "depends on an assumption");
  EXPECT_NE(answer.find("fabric.reroute.local_repair"), std::string::npos) << answer;
  EXPECT_EQ(answer.find("fabric.ib.sm_compute_time"), std::string::npos) << answer;
  // The report's throughput-over-time chart reads each fabric's incident.csv.
  ASSERT_EQ(s.throughput.size(), 2u);
  for (const EvalThroughputSeries& t : s.throughput) {
    EXPECT_EQ(ev.conditions[t.condition].name, "link-down");
    EXPECT_GT(t.points.size(), 10u);
    EXPECT_LE(t.points.size(), EvalThroughputSeries::kMaxPoints);
  }
}

// The throughput-over-time charts of a report, from series given directly
// (no cell runs): an evaluation whose three fabrics fail a link, one of them
// recovering only after 200 ms, and a SHARP workload on one fabric.
struct ThroughputReport {
  Evaluation ev;
  std::vector<EvalCell> cells;
  std::vector<CellOutcome> outcomes;
  EvalSummary s;
  std::string html;
  std::string md;
};

ThroughputReport throughput_report(const std::vector<EvalThroughputSeries>& series) {
  ThroughputReport r;
  r.ev = load_evaluation_text(R"(name: tput
cluster: {servers: 2, gpus_per_server: 2, nic_rate: 100Gbps, topology: leaf-spine, cable_delay: 500ns}
fabrics:
  - ib-ndr
  - {profile: rocev2-dcqcn, name: roce}
  - {profile: iwarp-dctcp, name: iwarp}
workloads:
  - {type: collective, name: ar, op: all_reduce, sizes: [1MiB]}
  - {type: collective, name: ar-sharp, op: all_reduce, algo: sharp, sizes: [1MiB], fabrics: [ib-ndr]}
conditions:
  - baseline
  - {name: link-down, link_down: {at: 20us}}
weights: {collective: 1}
)",
                              "tput.yaml");
  r.cells = eval_cells(r.ev);
  r.outcomes.resize(r.cells.size());
  for (CellOutcome& o : r.outcomes) o.error = "not run";
  r.s = summarize(r.ev, r.cells, r.outcomes);
  r.s.throughput = series;
  const EvalReportInput in{r.ev, r.cells, r.outcomes, r.s};
  r.html = report_html(in);
  r.md = report_markdown(in);
  return r;
}

// (time us, Gb/s): at 100 Gb/s every 10 us from 10 us to `end_us`, none in
// the last bin (the workload finished within it).
std::vector<std::pair<double, double>> running_until(double end_us) {
  std::vector<std::pair<double, double>> p;
  for (double t = 10; t < end_us; t += 10) p.emplace_back(t, 100.0);
  p.emplace_back(end_us, 0.0);
  return p;
}

// The chart <svg> whose title starts with `title`, or "".
std::string chart_titled(const std::string& html, const std::string& title) {
  const size_t at = html.find("aria-label=\"" + title);
  if (at == std::string::npos) return "";
  const size_t from = html.rfind("<svg ", at);
  return html.substr(from, html.find("</figure>", at) - from);
}

// One fabric recovering after 200 ms would stretch the time axis to where
// the others are a spike at zero: the axis ends where they have finished, the
// chart says so, and the line cut is labelled with where it ends.
TEST(EvaluateReport, ThroughputOverTimeCutsTheAxisPastALongStraggler) {
  const ThroughputReport r = throughput_report({{0, 0, 0, 1, running_until(80)},
                                                {1, 0, 0, 1, running_until(90)},
                                                {2, 0, 0, 1, running_until(200000)}});
  const std::string svg = chart_titled(r.html, "ar: throughput delivered to the hosts over time, link-down");
  ASSERT_FALSE(svg.empty()) << r.html;
  // 90 us plus a little, to a round tick: 100 us; tick labels in time units.
  EXPECT_NE(svg.find(R"(text-anchor="middle">100µs</text>)"), std::string::npos) << svg;
  EXPECT_EQ(svg.find(R"(text-anchor="middle">200ms</text>)"), std::string::npos) << svg;
  EXPECT_NE(svg.find("Time axis cut at 100µs so every line reads; past it run iwarp"), std::string::npos)
      << svg;
  EXPECT_NE(svg.find(R"(text-anchor="end" class="cut")"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">iwarp → 200ms</text>"), std::string::npos) << svg;
  EXPECT_EQ(svg.find(">roce → "), std::string::npos) << svg;
}

// SHARP's data reaches the hosts as aggregation packets the incident monitor
// does not count: rather than a flat zero line, the report says why there is
// no chart, in both report.html and report.md.
TEST(EvaluateReport, SharpGetsASentenceNotAFlatZeroThroughputChart) {
  std::vector<std::pair<double, double>> zero;
  for (double t = 10; t <= 60; t += 10) zero.emplace_back(t, 0.0);
  const ThroughputReport r = throughput_report({{0, 0, 0, 1, running_until(80)}, {0, 1, 0, 1, zero}});
  EXPECT_FALSE(chart_titled(r.html, "ar: throughput delivered").empty());
  EXPECT_TRUE(chart_titled(r.html, "ar-sharp: throughput delivered").empty()) << r.html;
  const std::string why =
      "No throughput-over-time chart for ar-sharp under link-down on ib-ndr: SHARP reduces in the switches";
  EXPECT_NE(r.html.find(why), std::string::npos);
  EXPECT_NE(r.md.find(why), std::string::npos);
  // A workload that is not SHARP keeps its zero line: there it is a measurement.
  const ThroughputReport idle = throughput_report({{0, 0, 0, 1, zero}});
  EXPECT_FALSE(chart_titled(idle.html, "ar: throughput delivered").empty());
  EXPECT_EQ(idle.html.find("No throughput-over-time chart"), std::string::npos);
}

// A criterion scored as the geometric mean of several figures (a collective's sizes)
// says so where its leader is named and in the decision table, so "73 GB/s"
// is not read as one measurement.
TEST(EvaluateReport, ACriterionThatIsAMeanSaysOfWhat) {
  ThroughputReport r = throughput_report({});
  EvalScore sc{"collective", 1, {100, 50, 40}, {100, 50, 40}, {}, "GB/s", false};
  sc.cites = {"ib-ndr.ar-1MiB.baseline.busbw_GBps ib-ndr.ar-32MiB.baseline.busbw_GBps",
              "roce.ar-1MiB.baseline.busbw_GBps roce.ar-32MiB.baseline.busbw_GBps",
              "iwarp.ar-1MiB.baseline.busbw_GBps iwarp.ar-32MiB.baseline.busbw_GBps"};
  r.s.scores = {sc};
  r.s.total = {100, 50, 40};
  r.s.best = 0;
  const std::string md = report_markdown(EvalReportInput{r.ev, r.cells, r.outcomes, r.s});
  EXPECT_NE(
      md.find(
          "On collective (the geometric mean of ar-1MiB.baseline and ar-32MiB.baseline busbw_GBps), ib-ndr "
          "leads with 100 GB/s"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("| collective, geometric mean of 2 figures |"), std::string::npos) << md;
}

// A criterion of several figures scores their geometric mean: roce, twice
// ib's busbw at 1 MiB and 1/6 short of it at 32 MiB, leads, where an
// arithmetic mean (35 GB/s each) would call them equal and let the larger
// size's GB/s outweigh the smaller's.
TEST(EvaluateSummary, ACriterionOfSeveralFiguresScoresTheirGeometricMean) {
  const Evaluation ev = load_evaluation_text(R"(name: geo
cluster: {servers: 2, gpus_per_server: 2, nic_rate: 100Gbps, topology: leaf-spine, cable_delay: 500ns}
fabrics:
  - ib-ndr
  - {profile: rocev2-dcqcn, name: roce}
workloads:
  - {type: collective, name: ar, op: all_reduce, sizes: [1MiB, 32MiB]}
conditions:
  - baseline
weights: {collective: 1}
)",
                                             "geo.yaml");
  const std::vector<EvalCell> cells = eval_cells(ev);
  ASSERT_EQ(cells.size(), 4U);
  const double busbw[2][2] = {{10, 60}, {20, 50}};  // [fabric][size]
  std::vector<CellOutcome> outcomes(cells.size());
  for (size_t i = 0; i < cells.size(); ++i) {
    outcomes[i].ok = true;
    outcomes[i].results = {
        {"scenario", {{"fabric", nlohmann::json::object()}, {"topology", nlohmann::json::object()}}},
        {"workload_results",
         {{{"finished", true}, {"busbw_GBps", busbw[cells[i].fabric][cells[i].point]}, {"time_us", 100.0}}}}};
  }
  const EvalSummary s = summarize(ev, cells, outcomes);
  ASSERT_EQ(s.scores.size(), 1U);
  const EvalScore& sc = s.scores[0];
  EXPECT_NEAR(sc.value[0], std::sqrt(10.0 * 60.0), 1e-9);
  EXPECT_NEAR(sc.value[1], std::sqrt(20.0 * 50.0), 1e-9);
  EXPECT_DOUBLE_EQ(sc.score[1], 100.0);
  EXPECT_NEAR(sc.score[0], 100.0 * std::sqrt(600.0 / 1000.0), 1e-9);
  EXPECT_EQ(s.best, 1U);

  // Swept over its assumptions, the criterion moves as the geometric mean of
  // its figures' ends: roce's 1 MiB figure over 16-25, its 32 MiB one over
  // 25-64, so roce's busbw spans sqrt(16 x 25) = 20 to sqrt(25 x 64) = 40.
  EvalSummary swept = s;
  for (EvalFigure& x : swept.figures)
    if (x.metric == "busbw_GBps") {
      x.assumed_low = x.fabric == 1 ? (x.point == 0 ? 16 : 25) : x.mean;
      x.assumed_high = x.fabric == 1 ? (x.point == 0 ? 25 : 64) : x.mean * 1.5;
    }
  const std::string md = report_markdown(EvalReportInput{ev, cells, outcomes, swept});
  EXPECT_NE(
      md.find(
          "roce from 20 GB/s [low:roce.ar-1MiB.baseline.busbw_GBps low:roce.ar-32MiB.baseline.busbw_GBps] "
          "to 40 GB/s [high:roce.ar-1MiB.baseline.busbw_GBps high:roce.ar-32MiB.baseline.busbw_GBps]"),
      std::string::npos)
      << md;
}

// Congestion scores the worst slowdown beside traffic alone, resilience the
// worst under a failure: ib's collective slows 3x under the load and 1.25x
// with the link down, roce's 1.5x and 4x. In one criterion (as before the
// split) ib's load figure would have stood for its failure recovery too.
TEST(EvaluateSummary, CongestionAndResilienceReadSeparateConditions) {
  const Evaluation ev = load_evaluation_text(R"(name: split
cluster: {servers: 2, gpus_per_server: 2, nic_rate: 100Gbps, topology: leaf-spine, cable_delay: 500ns}
fabrics:
  - ib-ndr
  - {profile: rocev2-dcqcn, name: roce}
workloads:
  - {type: collective, name: ar, op: all_reduce, sizes: [1MiB]}
conditions:
  - baseline
  - {name: load-50, background: {load: 50%, cdf: storage}}
  - {name: down, link_down: {at: 20us}}
  - {name: down-loaded, link_down: {at: 20us}, background: {load: 50%, cdf: storage}, fabrics: [roce]}
weights: {congestion: 1, resilience: 1}
)",
                                             "split.yaml");
  const std::vector<EvalCell> cells = eval_cells(ev);
  ASSERT_EQ(cells.size(), 7U);
  const double busbw[2][4] = {{40, 40 / 3.0, 32, 0}, {30, 20, 7.5, 1}};  // [fabric][condition]
  std::vector<CellOutcome> outcomes(cells.size());
  for (size_t i = 0; i < cells.size(); ++i) {
    outcomes[i].ok = true;
    outcomes[i].results = {
        {"scenario", {{"fabric", nlohmann::json::object()}, {"topology", nlohmann::json::object()}}},
        {"workload_results",
         {{{"finished", true},
           {"busbw_GBps", busbw[cells[i].fabric][cells[i].condition]},
           {"time_us", 100.0}}}}};
  }
  const EvalSummary s = summarize(ev, cells, outcomes);
  ASSERT_EQ(s.scores.size(), 2U);
  const EvalScore& congestion = s.scores[0];
  const EvalScore& resilience = s.scores[1];
  ASSERT_EQ(congestion.criterion, "congestion");
  ASSERT_EQ(resilience.criterion, "resilience");
  EXPECT_NEAR(congestion.value[0], 3.0, 1e-9);
  EXPECT_NEAR(congestion.value[1], 1.5, 1e-9);
  EXPECT_EQ(congestion.cites[0], "ib-ndr.ar-1MiB.baseline.busbw_GBps / ib-ndr.ar-1MiB.load-50.busbw_GBps");
  EXPECT_NEAR(congestion.score[0], 50.0, 1e-9);
  EXPECT_NEAR(resilience.value[0], 1.25, 1e-9);
  // roce's 30x under the failure with load is limited to roce: not scored.
  EXPECT_NEAR(resilience.value[1], 4.0, 1e-9);
  EXPECT_EQ(resilience.cites[1], "roce.ar-1MiB.baseline.busbw_GBps / roce.ar-1MiB.down.busbw_GBps");
  EXPECT_NEAR(resilience.score[1], 100.0 * 1.25 / 4.0, 1e-9);
}

// A results object that lacks a section (here: no network, flows or
// incident) gives the figures it has and none it lacks; reading a missing
// key of a const JSON object was undefined behaviour and crashed.
TEST(EvaluateReport, ResultsWithoutASectionGiveOnlyTheFiguresTheyHave) {
  const nlohmann::ordered_json r = {
      {"workload_results", {{{"finished", true}, {"busbw_GBps", 12.5}, {"time_us", 80.0}}}}};
  const auto m = cell_metrics("collective", r);
  ASSERT_EQ(m.size(), 2U);
  EXPECT_EQ(m[0].first, "busbw_GBps");
  EXPECT_DOUBLE_EQ(m[0].second, 12.5);
  EXPECT_EQ(m[1].first, "time_us");
  EXPECT_DOUBLE_EQ(m[1].second, 80.0);
  // A flows workload without its flows section has no figure at all.
  EXPECT_TRUE(cell_metrics("incast", nlohmann::ordered_json::object()).empty());
  EXPECT_TRUE(cell_metrics("scenario", nlohmann::ordered_json::object()).empty());
}

// With two seeds each criterion says whether its lead holds on every seed:
// ib's busbw 10 and 14 GB/s (mean 12) leads roce's 11 and 12 (11.5) on the
// means, but its worse seed is below roce's better one; against roce's 8
// and 9 it holds. With one seed the decision says its figures are one run.
TEST(EvaluateReport, EachLeadIsCheckedAgainstTheSeedsSpread) {
  const auto markdown = [](const std::string& seeds, const double(&busbw)[2][2]) {
    const Evaluation ev = load_evaluation_text(R"(name: seeds
cluster: {servers: 2, gpus_per_server: 2, nic_rate: 100Gbps, topology: leaf-spine, cable_delay: 500ns}
seeds: )" + seeds + R"(
fabrics:
  - ib-ndr
  - {profile: rocev2-dcqcn, name: roce}
workloads:
  - {type: collective, name: ar, op: all_reduce, sizes: [1MiB]}
conditions:
  - baseline
weights: {collective: 1}
)",
                                               "seeds.yaml");
    const std::vector<EvalCell> cells = eval_cells(ev);
    std::vector<CellOutcome> outcomes(cells.size());
    for (size_t i = 0; i < cells.size(); ++i) {
      const double v = busbw[cells[i].fabric][cells[i].seed == ev.seeds.front() ? 0 : 1];
      outcomes[i].ok = true;
      outcomes[i].results = {
          {"scenario", {{"fabric", nlohmann::json::object()}, {"topology", nlohmann::json::object()}}},
          {"workload_results", {{{"finished", true}, {"busbw_GBps", v}, {"time_us", 100.0}}}}};
    }
    const EvalSummary s = summarize(ev, cells, outcomes);
    return report_markdown(EvalReportInput{ev, cells, outcomes, s});
  };
  const double close[2][2] = {{10, 14}, {11, 12}};
  const std::string within = markdown("[1, 2]", close);
  EXPECT_NE(
      within.find("Over the 2 seeds (each figure at its least, then at its greatest): ib-ndr 10-14 GB/s; "
                  "roce 11-12 GB/s; the lead on collective is within the seeds' spread"),
      std::string::npos)
      << within;
  const double apart[2][2] = {{10, 14}, {8, 9}};
  const std::string holds = markdown("[1, 2]", apart);
  EXPECT_NE(holds.find("ib-ndr 10-14 GB/s; roce 8-9 GB/s; the lead on collective holds on every seed."),
            std::string::npos)
      << holds;
  EXPECT_EQ(holds.find("is one run"), std::string::npos);
  const std::string one = markdown("[7]", apart);
  EXPECT_NE(one.find("Every figure here is one run (seed 7)"), std::string::npos) << one;
  EXPECT_EQ(one.find("Over the"), std::string::npos);
}

// The recommendation says what its lead is made of (each criterion's
// weighted score difference against the runner-up, summing to the margin)
// and which two criteria left out together narrow it most: here ib-ndr's
// 12.5-point lead is latency's and bandwidth's 10 each less incast's and
// training's 3.75, and without latency and bandwidth roce leads by 15.
TEST(EvaluateReport, TheRecommendationSaysWhatItsLeadIsMadeOf) {
  ThroughputReport r = throughput_report({});
  const auto score = [](const char* c, const std::vector<double>& v) {
    EvalScore sc{c, 1, v, v, {}, "us", true};
    sc.cites = {"a", "b", "c"};
    return sc;
  };
  r.s.scores = {score("latency", {100, 60, 10}), score("bandwidth", {100, 60, 10}),
                score("incast", {85, 100, 10}), score("training", {85, 100, 10})};
  r.s.total = {92.5, 80, 10};
  r.s.best = 0;
  const std::string md = report_markdown(EvalReportInput{r.ev, r.cells, r.outcomes, r.s});
  EXPECT_NE(
      md.find("It leads with any one criterion left out. Its lead of 12.5 points over roce comes most from "
              "latency (+10), bandwidth (+10); roce is ahead on incast (-3.75), training (-3.75). Without "
              "both latency and bandwidth, roce leads by 15 points."),
      std::string::npos)
      << md;
  // On the page the verdict is set in bold, and so is the weighted score's row.
  const std::string html = report_html(EvalReportInput{r.ev, r.cells, r.outcomes, r.s});
  EXPECT_NE(html.find("<p><strong>Recommendation: ib-ndr</strong>, with the highest weighted score"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<td class=\"strong\">weighted score</td>"), std::string::npos) << html;
}

// A latency distribution is drawn as the share of round trips slower than
// each latency on a log scale: p99.9 of 5000 at 0.001 and the slowest at
// 1/5000, one decade apart. A condition that never reached the workload
// (every figure as baseline's) gets no distribution chart: it would repeat
// baseline's.
TEST(EvaluateReport, LatencyTailsAreDrawnOnALogScaleOfTheShareSlower) {
  const Evaluation ev = load_evaluation_text(R"(name: tail
cluster: {servers: 2, gpus_per_server: 2, nic_rate: 100Gbps, topology: leaf-spine, cable_delay: 500ns}
fabrics: [ib-ndr]
workloads: [{type: latency, iters: 5000}]
conditions: [baseline, {name: link-down, link_down: {at: 20us}}]
weights: {latency: 1}
)",
                                             "tail.yaml");
  const std::vector<EvalCell> cells = eval_cells(ev);
  std::vector<CellOutcome> outcomes(cells.size());
  for (CellOutcome& o : outcomes) o.error = "not run";
  EvalSummary s = summarize(ev, cells, outcomes);
  for (size_t c = 0; c < 2; ++c) {
    s.cdfs.push_back(EvalCdf{0, 0, 0, c, {{0, 2}, {0.5, 2.5}, {0.99, 4}, {0.999, 8}, {1, 16}}, 5000});
    for (const char* m : {"p50_us", "p99_us", "p999_us"})
      s.figures.push_back(made_figure(
          fmt::format("ib-ndr.latency.{}.{}", c == 0 ? "baseline" : "link-down", m), 0, 0, c, m, "us", 2.5));
  }
  const std::string html = report_html(EvalReportInput{ev, cells, outcomes, s});
  const std::string chart =
      chart_titled(html, "latency: share of round trips slower than each latency, baseline");
  ASSERT_FALSE(chart.empty()) << html;
  // The y axis is logarithmic, 1/5000 up to 1: its ticks are decades.
  for (const char* tick : {">0.001<", ">0.01<", ">0.1<", ">1<"})
    EXPECT_NE(chart.find(tick), std::string::npos) << tick << chart;
  EXPECT_TRUE(
      chart_titled(html, "latency: share of round trips slower than each latency, link-down").empty());
}

// Beside the idle criteria, the decision tabulates each workload's key
// metric under every other condition all fabrics meet, each with its ratio
// to the same fabric idle, and names the leader where it is not the idle
// one: ib-ndr leads the AllReduce idle (20 GB/s) but keeps a quarter of it
// after the link fails, where roce (9 of 10) leads.
TEST(EvaluateReport, TheDecisionShowsWhoLeadsUnderEachCondition) {
  ThroughputReport r = throughput_report({});
  const char* fabric[3] = {"ib-ndr", "roce", "iwarp"};
  const double busbw[3][2] = {{20, 5}, {10, 9}, {10, 8}};  // [fabric][baseline, link-down]
  for (size_t f = 0; f < 3; ++f)
    for (size_t c = 0; c < 2; ++c) {
      EvalFigure x =
          made_figure(fmt::format("{}.ar-1MiB.{}.busbw_GBps", fabric[f], c == 0 ? "baseline" : "link-down"),
                      f, 0, c, "busbw_GBps", "GB/s", busbw[f][c]);
      x.lower_is_better = false;
      r.s.figures.push_back(x);
    }
  const std::string md = report_markdown(EvalReportInput{r.ev, r.cells, r.outcomes, r.s});
  EXPECT_NE(md.find("it differs from the idle leader in 1 of 1 rows"), std::string::npos) << md;
  EXPECT_NE(
      md.find(
          "| ar 1MiB, link-down | busbw [GB/s] | 5 (x0.25) | 9 (x0.9) | 8 (x0.8) | roce (idle: ib-ndr) |"),
      std::string::npos)
      << md;
}

// A failure that never reached a workload (every figure equals baseline's)
// gets the section's sentence, not a throughput chart that repeats baseline.
TEST(EvaluateReport, NoThroughputChartForAConditionThatNeverReachedTheWorkload) {
  ThroughputReport r = throughput_report({{0, 0, 0, 1, running_until(80)}, {1, 0, 0, 1, running_until(80)}});
  const std::string chart = chart_titled(r.html, "ar: throughput delivered");
  ASSERT_FALSE(chart.empty());
  // The condition's link goes down at 20 us: the chart marks the moment.
  EXPECT_NE(chart.find(">link down</text>"), std::string::npos) << chart;
  const char* fabric[3] = {"ib-ndr", "roce", "iwarp"};
  for (size_t f = 0; f < 3; ++f)
    for (size_t c = 0; c < 2; ++c)
      r.s.figures.push_back(
          made_figure(fmt::format("{}.ar-1MiB.{}.busbw_GBps", fabric[f], c == 0 ? "baseline" : "link-down"),
                      f, 0, c, "busbw_GBps", "GB/s", 20.0));
  const std::string html = report_html(EvalReportInput{r.ev, r.cells, r.outcomes, r.s});
  EXPECT_TRUE(chart_titled(html, "ar: throughput delivered").empty());
  EXPECT_NE(html.find("and no latency-distribution or throughput-over-time chart is drawn for it"),
            std::string::npos);
}

// A misconfiguration condition (misconfig:, as a scenario writes it): each
// cell runs labelled, its lossless drops are the condition's figures, not a
// failed cell; a target the cluster lacks is refused at the condition.
TEST_F(EvaluateTest, MisconfigConditionReportsWhatTheInjectionCaused) {
  const std::string yaml = R"(name: mis
cluster: {servers: 2, gpus_per_server: 4, nic_rate: 100Gbps, topology: leaf-spine, cable_delay: 500ns}
duration: 20ms
fabrics:
  - {profile: rocev2-dcqcn, name: roce}
workloads:
  - {type: incast, name: inc, senders: 7, size: 1MiB}
conditions:
  - baseline
  - {name: headroom, misconfig: [{switch: all, set: {pfc: {headroom: 2KB, xoff: 64KB}}}]}
weights: {incast: 1}
)";
  const Evaluation ev = load_evaluation_text(yaml, "mis.yaml");
  const std::vector<EvalCell> cells = eval_cells(ev);
  check_cells(ev, cells);
  const Written w = evaluate(ev, cells, dir_ / "out", 2);
  for (const CellOutcome& o : w.outcomes) EXPECT_TRUE(o.ok) << o.error;
  const EvalSummary s = summarize(ev, cells, w.outcomes);
  const EvalFigure* drops = find_figure(s, "roce.inc.headroom.lossless_class_drops");
  ASSERT_NE(drops, nullptr);
  EXPECT_GT(drops->mean, 0.0);
  EXPECT_EQ(find_figure(s, "roce.inc.baseline.lossless_class_drops"), nullptr);
  const EvalFigure* base = find_figure(s, "roce.inc.baseline.lossless_drops");
  ASSERT_NE(base, nullptr);
  EXPECT_EQ(base->mean, 0.0);
  // The misconfiguration claim is answered from the condition, citing its figure.
  bool answered = false;
  for (const ClaimAnswer& a : answer_claims(EvalReportInput{ev, cells, w.outcomes, s}))
    if (a.claim.rfind("Misconfigured PFC or ECN", 0) == 0) {
      answered = true;
      // Loss shown; head-of-line blocking not measured (no incast elsewhere): in part.
      EXPECT_EQ(a.verdict, "partly supported");
      EXPECT_NE(a.evidence.find("[roce.inc.headroom.lossless_class_drops]"), std::string::npos) << a.evidence;
    }
  EXPECT_TRUE(answered);

  std::string bad = yaml;
  bad.replace(bad.find("switch: all"), 11, "switch: sw9");
  const Evaluation ev2 = load_evaluation_text(bad, "mis.yaml");
  try {
    check_cells(ev2, eval_cells(ev2));
    ADD_FAILURE() << "accepted a misconfig naming no switch of the cluster";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 10);
    EXPECT_NE(std::string(e.what()).find("no node named 'sw9'"), std::string::npos) << e.what();
  }
}

// A condition limited to some fabrics (a PFC misconfiguration only lossless
// Ethernet can have) is reported, but no criterion scores it: the fabrics
// that never meet it would be scored on less than the others.
TEST_F(EvaluateTest, AConditionOnSomeFabricsIsReportedButNotScored) {
  const std::string yaml = R"(name: mis2
cluster: {servers: 2, gpus_per_server: 4, nic_rate: 100Gbps, topology: leaf-spine, cable_delay: 500ns}
duration: 20ms
fabrics:
  - {profile: rocev2-dcqcn, name: roce}
  - ib-hdr
workloads:
  - {type: incast, name: inc, senders: 7, size: 1MiB}
conditions:
  - baseline
  - {name: headroom, misconfig: [{switch: all, set: {pfc: {headroom: 2KB, xoff: 64KB}}}], fabrics: [roce]}
weights: {incast: 1, resilience: 1}
)";
  const Evaluation ev = load_evaluation_text(yaml, "mis2.yaml");
  const std::vector<EvalCell> cells = eval_cells(ev);
  check_cells(ev, cells);
  const Written w = evaluate(ev, cells, dir_ / "out", 2);
  const EvalSummary s = summarize(ev, cells, w.outcomes);
  const EvalFigure* drops = find_figure(s, "roce.inc.headroom.lossless_class_drops");
  ASSERT_NE(drops, nullptr);
  EXPECT_GT(drops->mean, 0.0);  // the condition ran, and hurt
  for (const EvalScore& sc : s.scores) {
    EXPECT_NE(sc.criterion, "resilience") << "no condition every fabric meets: nothing to score";
    for (const std::string& c : sc.cites) EXPECT_EQ(c.find(".headroom."), std::string::npos) << sc.criterion;
  }
}

// kSmall with its load-30 condition replaced by `condition` (named `name`):
// the scenarios of that condition's cells, each checked, and whether it
// counts as load.
struct ConditionCells {
  std::vector<std::string> scenarios;
  std::vector<std::string> workloads;
  bool loaded = false;
};
ConditionCells cells_under(const std::string& condition, const std::string& name) {
  const Evaluation ev = load_evaluation_text(
      edit(kSmall, "{name: load-30, background: {load: 30%, cdf: storage}}", condition), "small.yaml");
  const std::vector<EvalCell> cells = eval_cells(ev);
  check_cells(ev, cells);
  ConditionCells out;
  out.loaded = ev.conditions[1].is_loaded() && !ev.conditions[1].is_baseline();
  for (const auto& c : cells)
    if (ev.conditions[c.condition].name == name) {
      out.scenarios.push_back(c.scenario);
      out.workloads.push_back(ev.workloads[c.workload].name);
    }
  return out;
}

TEST(EvaluateCells, IncastConditionTargetsTheMeasuredReceiver) {
  const ConditionCells c = cells_under(
      "{name: incast-beside, incast: {senders: 2, size: 256KiB}, workloads: [latency]}", "incast-beside");
  // One per fabric: the condition is limited to the latency workload.
  EXPECT_EQ(c.workloads, (std::vector<std::string>{"latency", "latency"}));
  // The perftest's server is host 2 (server 1's first NIC); the incast goes there.
  for (const auto& sc : c.scenarios)
    EXPECT_NE(sc.find("type: incast\n    senders: 2\n    size: 256KiB\n    receiver: 2"), std::string::npos)
        << sc;
  EXPECT_TRUE(c.loaded);
}

// An incast `into: elsewhere` goes to another host, with the measured
// source among its senders, so the probe never enters the congested port.
// On the 4-host cluster the probe runs 0 -> 2: the receiver is as far past
// 2 as 2 is past 0 (host 0, the source, so the next: 1), the senders 0 and
// then 1 + 2 = 3. A non-perftest workload, or more senders than hosts
// other than the two ends, is refused at the condition.
TEST(EvaluateCells, AnIncastElsewhereTakesTheProbesSourceNotItsPort) {
  const ConditionCells c = cells_under(
      "{name: elsewhere, incast: {senders: 2, size: 256KiB, into: elsewhere}, workloads: [latency]}",
      "elsewhere");
  EXPECT_EQ(c.workloads, (std::vector<std::string>{"latency", "latency"}));
  for (const auto& sc : c.scenarios) {
    EXPECT_NE(sc.find("  - type: flow\n    src: 0\n    dst: 1\n    size: 256KiB\n  - type: flow\n    "
                      "src: 3\n    dst: 1\n    size: 256KiB\n"),
              std::string::npos)
        << sc;
    EXPECT_EQ(sc.find("type: incast"), std::string::npos) << sc;
  }
  EXPECT_TRUE(c.loaded);

  const auto refused = [](const std::string& text, const std::string& key) {
    try {
      (void)load_evaluation_text(text, "small.yaml");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const InputError& e) {
      EXPECT_EQ(e.key(), key) << e.what();
    }
  };
  refused(edit(kSmall, "{name: load-30, background: {load: 30%, cdf: storage}}",
               "{name: elsewhere, incast: {senders: 2, size: 256KiB, into: elsewhere}}"),
          "conditions[1].incast.into");
  refused(
      edit(kSmall, "{name: load-30, background: {load: 30%, cdf: storage}}",
           "{name: elsewhere, incast: {senders: 3, size: 256KiB, into: elsewhere}, workloads: [latency]}"),
      "conditions[1].incast.senders");
}

// Tuning effort recomputes from the cells: each trial's "worse by" is its
// key metric against the same workload's baseline cell, and a setting is a
// knob to get right exactly when one of its trials is worse than the threshold.
TEST_F(EvaluateTest, TuningEffortRecomputesFromTheCells) {
  const std::string text = std::string(kSmall) +
                           "tuning: {workloads: [incast], threshold: 5%, keys: [fabric.mtu, fabric.ecn.kmin, "
                           "fabric.ecn.enabled, fabric.pfc.enabled]}\n";
  const Evaluation ev =
      load_evaluation_text(edit(text, "resilience: 1, cost: 1}", "resilience: 1, tuning: 1}"), "t.yaml");
  const std::vector<EvalCell> cells = eval_cells(ev);
  size_t tuning_cells = 0;
  for (const auto& c : cells) tuning_cells += c.knob.empty() || c.assumption ? 0 : 1;
  // ib-ndr: mtu x0.5 (x2 would be 8 KiB, above any InfiniBand path MTU);
  // roce (1000 B frames): mtu x0.5 and x2, kmin x0.5 and x2, pfc flipped. ECN
  // off is refused under DCQCN (it needs the marks): not tried either.
  EXPECT_EQ(tuning_cells, 1u + 5u);
  const Written w = evaluate(ev, cells, dir_, 2);
  const auto j = nlohmann::json::parse(w.json);
  for (const auto& [fabric, t] : j["tuning"]["fabrics"].items()) {
    std::set<std::string> sensitive;
    for (const auto& tr : t["trials"]) {
      // The same metric straight from the two cells' results.json.
      const auto metric = [&](const std::string& id) {
        const auto r = nlohmann::json::parse(slurp(dir_ / "cells" / id / "results.json"));
        return r["throughput"]["makespan_ns"].get<double>() / 1e3;
      };
      const std::string base_id = fabric + ".incast.baseline.s1";
      const double b = metric(base_id);
      EXPECT_DOUBLE_EQ(tr["baseline"].get<double>(), b);
      if (tr["worse_by"].is_number()) {
        EXPECT_DOUBLE_EQ(tr["worse_by"].get<double>(), metric(tr["cell"].get<std::string>()) / b - 1);
        if (tr["worse_by"].get<double>() > 0.05) sensitive.insert(tr["key"].get<std::string>());
      } else {
        sensitive.insert(tr["key"].get<std::string>());
      }
    }
    EXPECT_EQ(t["sensitive_count"].get<size_t>(), sensitive.size()) << fabric;
    EXPECT_EQ(std::set<std::string>(t["sensitive"].begin(), t["sensitive"].end()), sensitive) << fabric;
  }
  EXPECT_EQ(j["tuning"]["fabrics"]["ib-ndr"]["settings_tried"], 1);
  EXPECT_EQ(j["tuning"]["fabrics"]["roce"]["settings_tried"], 3);
  // A key none of the fabrics uses is refused.
  expect_refused(edit(text, "fabric.mtu,", "fabric.hpcc.eta,"), "e.yaml:16",
                 "none of the compared fabrics uses");
}

void expect_refused(const std::string& text, const std::string& where, const std::string& what) {
  try {
    const Evaluation ev = load_evaluation_text(text, "e.yaml");
    check_cells(ev, eval_cells(ev));
    FAIL() << "accepted: " << what;
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(where), std::string::npos) << msg;
    EXPECT_NE(msg.find(what), std::string::npos) << msg;
  }
}

TEST(EvaluateInput, BadInputIsRefusedWhereItIsWritten) {
  expect_refused(edit(kSmall, "  - ib-ndr", "  - ib-xdr"), "e.yaml:5:5", "unknown fabric profile 'ib-xdr'");
  expect_refused(edit(kSmall, "{type: latency, iters: 50}", "{type: latncy}"),
                 "e.yaml:8:", "expected one of: latency");
  expect_refused(edit(kSmall, "{name: load-30, background: {load: 30%, cdf: storage}}",
                      "{name: x, fabrics: [nope], background: {load: 0.3}}"),
                 "e.yaml:13", "no fabric named 'nope'");
  expect_refused(
      edit(kSmall, "weights: {latency: 1, tail_latency: 1, incast: 1, collective: 2, resilience: 1, cost: 1}",
           "weights: {latency: 0, incast: 0}"),
      "e.yaml:14", "weights that sum to a positive number");
  expect_refused(edit(kSmall, "weights: {latency: 1,", "weights: {speed: 1, latency: 1,"), "e.yaml:14",
                 "unknown criterion");
  expect_refused(edit(kSmall, "topology: leaf-spine", "topology: fat-tree"), "e.yaml:2",
                 "a k-ary fat-tree has k^3/4 hosts");
  // A workload key the scenario refuses is reported at the workload entry.
  expect_refused(
      edit(kSmall, "{type: incast, senders: 3, size: 64KiB}", "{type: incast, senders: 3, size: 64Kb}"),
      "e.yaml:9", "workload[0].size");
  // Only fabric settings may differ between compared fabrics.
  expect_refused(edit(kSmall, "{profile: rocev2-dcqcn, name: roce}",
                      "{profile: rocev2-dcqcn, name: roce, set: {topology.link.rate: 200Gbps}}"),
                 "e.yaml:6", "only fabric settings may change");
  expect_refused(edit(kSmall, "{profile: rocev2-dcqcn, name: roce}",
                      "{profile: rocev2-dcqcn, name: roce, set: {fabric.ecn.kmin: 10 apples}}"),
                 "e.yaml:6", "fabric.ecn.kmin");
  // A workload limited to some fabrics names fabrics of the file, and stays
  // out of the tuning sweep, whose knob counts compare the same workloads.
  expect_refused(edit(kSmall, "{type: incast, senders: 3, size: 64KiB}",
                      "{type: incast, senders: 3, size: 64KiB, fabrics: [ib-xdr]}"),
                 "e.yaml:9", "no fabric named 'ib-xdr'");
  expect_refused(edit(edit(kSmall, "{type: incast, senders: 3, size: 64KiB}",
                           "{type: incast, senders: 3, size: 64KiB, fabrics: [ib-ndr]}"),
                      "assumptions: {workloads: [latency]}", "tuning: {workloads: [incast]}"),
                 "e.yaml:15", "runs on some fabrics only");
  // A scenario workload names a readable scenario file and takes nothing else.
  expect_refused(
      edit(kSmall, "{type: incast, senders: 3, size: 64KiB}", "{type: scenario, file: no-such.yaml}"),
      "e.yaml:9", "cannot read the scenario file");
  expect_refused(edit(kSmall, "{type: incast, senders: 3, size: 64KiB}",
                      "{type: scenario, file: no-such.yaml, size: 1MiB}"),
                 "e.yaml:9", "a scenario workload takes file");
}

// A user's own scenario as a workload: run whole (its topology, workloads),
// with only the fabric block swapped for each compared fabric (its own
// fabric settings do not leak into the comparison); its completion time is
// a figure and a criterion, and a cell reruns alone to the same results.
TEST_F(EvaluateTest, AUsersScenarioRunsWholeWithOnlyTheFabricChanged) {
  fs::create_directories(dir_);
  {
    std::ofstream f(dir_ / "mine.yaml");
    f << "name: mine\nseed: 7\nfabric: {profile: rocev2-dcqcn, ecn: {kmin: 50KB}}\n"
         "topology: {type: fat-tree, k: 4, link: {rate: 100Gbps, delay: 1us}}\n"
         "workload:\n  - {type: permutation, size: 256KiB}\n"
         "  - {type: incast, senders: 4, size: 64KiB, receiver: 3}\n";
  }
  const std::string text =
      "name: own\nduration: 20ms\n"
      "cluster: {servers: 2, gpus_per_server: 2, nic_rate: 100Gbps, topology: leaf-spine}\n"
      "fabrics: [ib-ndr, {profile: rocev2-dcqcn-400g, name: roce}]\n"
      "workloads:\n  - {type: scenario, name: mine, file: mine.yaml}\n";
  const Evaluation ev = load_evaluation_text(text, (dir_ / "own.yaml").string());
  const auto cells = eval_cells(ev);
  check_cells(ev, cells);
  ASSERT_EQ(cells.size(), 2u);
  for (const EvalCell& c : cells) {
    const YAML::Node y = YAML::Load(c.scenario);
    EXPECT_EQ(y["fabric"].size(), 1u) << "only the profile: the scenario's own ECN setting is gone";
    EXPECT_EQ(y["fabric"]["profile"].as<std::string>(), ev.fabrics[c.fabric].profile);
    EXPECT_EQ(y["topology"]["type"].as<std::string>(), "fat-tree");
    EXPECT_EQ(y["topology"]["k"].as<int>(), 4);
    EXPECT_EQ(y["workload"].size(), 2u);
    EXPECT_EQ(y["seed"].as<int>(), 1);
  }
  const Written w = evaluate(ev, cells, dir_ / "out", 2);
  const auto j = nlohmann::json::parse(w.json);
  for (size_t i = 0; i < cells.size(); ++i) {
    const double end_us = w.outcomes[i].results["run"]["simulated_end_ps"].get<double>() / 1e6;
    const std::string id = ev.fabrics[cells[i].fabric].name + ".mine.baseline.completion_us";
    EXPECT_DOUBLE_EQ(j["figures"][id]["mean"].get<double>(), end_us) << id;
    EXPECT_GT(
        j["figures"][ev.fabrics[cells[i].fabric].name + ".mine.baseline.slowdown_p99"]["mean"].get<double>(),
        1.0);
  }
  ASSERT_EQ(j["scores"].size(), 2u);  // scenario and cost
  EXPECT_EQ(j["scores"][0]["criterion"], "scenario");
  // A cell reruns alone to the same results.
  const fs::path cell = dir_ / "out" / "cells" / "roce.mine.baseline.s1";
  const Scenario alone = load_scenario_file((cell / "scenario.yaml").string());
  Experiment e(alone);
  e.run();
  EXPECT_DOUBLE_EQ(e.sim().now().ps() / 1e6,
                   j["figures"]["roce.mine.baseline.completion_us"]["mean"].get<double>());
}

// The assumption sweep moves an assumption to the bounds its profile states
// (the 400G Ethernet switch latency: 250 ns to 1 us; the NIC latency, 200 to
// 550 ns), and one with no stated bounds to x0.5 and x2 (the XON offset).
TEST(EvaluateCells, TheAssumptionSweepUsesTheStatedBounds) {
  const Evaluation ev = load_evaluation_text(R"(name: bounds
cluster: {servers: 2, gpus_per_server: 2, nic_rate: 400Gbps, topology: leaf-spine}
fabrics: [rocev2-dcqcn-400g]
workloads: [{type: latency, iters: 10}]
assumptions: {workloads: [latency]}
)",
                                             "bounds.yaml");
  std::map<std::string, std::string> switch_latency, nic_latency, xon_offset;
  for (const EvalCell& c : eval_cells(ev)) {
    if (!c.assumption) continue;
    if (c.knob == "topology.switch.latency") switch_latency[c.knob_change] = c.knob_value;
    if (c.knob == "fabric.nic_tx_latency") nic_latency[c.knob_change] = c.knob_value;
    if (c.knob == "fabric.pfc.xon_offset") xon_offset[c.knob_change] = c.knob_value;
  }
  EXPECT_EQ(switch_latency, (std::map<std::string, std::string>{{"low", "250ns"}, {"high", "1us"}}));
  EXPECT_EQ(nic_latency, (std::map<std::string, std::string>{{"low", "200ns"}, {"high", "550ns"}}));
  EXPECT_EQ(xon_offset, (std::map<std::string, std::string>{{"x0.5", "1542B"}, {"x2", "6168B"}}));
}

// Claim 11 (IB to a few thousand GPUs, RoCE beyond) is measured only when
// the scale sweep reaches 2048 GPUs; then RoCE must keep more of its
// small-cluster busbw than IB. Checked on the scale points alone (a real
// sweep to 2048 GPUs takes minutes).
TEST(EvaluateClaims, ScaleToThousandsIsAnsweredOnlyAtThatSize) {
  const auto answer = [](int largest, double ib_kept, double roce_kept) {
    const Evaluation ev = load_evaluation_text(
        "name: big\ncluster: {servers: 2, gpus_per_server: 8, nic_rate: 400Gbps}\n"
        "fabrics: [ib-ndr, rocev2-dcqcn-400g]\n"
        "workloads: [{type: collective, name: ar, op: all_reduce, sizes: [32MiB]}]\n"
        "scale: {servers: [" +
            std::to_string(largest) + "], workloads: [ar]}\n",
        "big.yaml");
    EvalSummary s = claims_summary(2);
    for (size_t f = 0; f < 2; ++f) {
      const double kept = f == 0 ? ib_kept : roce_kept;
      for (const int n : {2, largest})
        s.scale.push_back(EvalScalePoint{fmt::format("scale.f{}.ar-32MiB.{}servers.busbw_GBps", f, n), f, 0,
                                         0, n, "busbw_GBps", n == 2 ? 100.0 : 100.0 * kept});
    }
    for (const ClaimAnswer& a : all_claims(ev, s))
      if (a.number == 11) return a;
    return ClaimAnswer{};
  };
  const ClaimAnswer small = answer(64, 0.5, 0.9);  // 512 GPUs
  EXPECT_EQ(small.verdict, "not measured");
  EXPECT_NE(small.finding.find("largest cluster here has 512 GPUs"), std::string::npos) << small.finding;
  const ClaimAnswer holds = answer(256, 0.5, 0.9);  // 2048 GPUs
  EXPECT_EQ(holds.verdict, "supported") << holds.evidence;
  EXPECT_NE(holds.evidence.find("[scale.f0.ar-32MiB.256servers.busbw_GBps]"), std::string::npos)
      << holds.evidence;
  EXPECT_EQ(answer(256, 0.9, 0.9).verdict, "contradicted");
}

// Claim 2 (IB's tail stays low under load) compares how much each fabric's
// p99.9 grows under load. An InfiniBand queue is as deep as its per-VL
// buffers, a default without a published source, so left at it the answer
// says it rests on it; set by the file, it is a plain verdict.
TEST_F(EvaluateTest, ClaimTwoRestsOnTheInfinibandBufferUnlessTheFileSetsIt) {
  const auto claim2 = [&](const std::string& ib) {
    const std::string yaml =
        "name: tail\nduration: 20ms\n"
        "cluster: {servers: 2, gpus_per_server: 2, nic_rate: 400Gbps, topology: leaf-spine}\n"
        "fabrics: [" +
        ib +
        ", rocev2-dcqcn-400g]\nworkloads: [{type: latency, iters: 100}]\n"
        "conditions: [baseline, {name: load-50, background: {load: 50%, cdf: storage}}]\n"
        "weights: {latency: 1}\n";
    const Evaluation ev = load_evaluation_text(yaml, "tail.yaml");
    const std::vector<EvalCell> cells = eval_cells(ev);
    const Written w = evaluate(ev, cells, dir_ / ("out" + std::to_string(ib.size())), 2);
    const auto j = nlohmann::json::parse(w.json);
    for (const auto& c : j["claims"])
      if (c["claim"] == 2)
        return std::pair{c["verdict"].get<std::string>(),
                         c["answer"].get<std::string>() + " " + c["evidence"].get<std::string>()};
    return std::pair{std::string(), std::string()};
  };
  const auto [assumed, why] = claim2("ib-ndr");
  EXPECT_EQ(assumed, "depends on an assumption");
  EXPECT_NE(why.find("fabric.ib.vl_buffer"), std::string::npos) << why;
  EXPECT_NE(why.find("[ib-ndr.latency.load-50.p999_us]"), std::string::npos) << why;
  // 100 round trips: their p99.9 is the slowest one, and the answer says so.
  EXPECT_NE(why.find("Each p99.9 is the maximum of 100 round trips"), std::string::npos) << why;
  const auto [set, evidence] = claim2("{profile: ib-ndr, set: {fabric.ib.vl_buffer: 128KiB}}");
  EXPECT_TRUE(set == "supported" || set == "contradicted") << set;
  EXPECT_EQ(evidence.find("fabric.ib.vl_buffer"), std::string::npos) << evidence;
}

// Claim 1 splits the latency gap it compares into the switches on the
// probe's path times their latency difference, the NICs' latencies, and the
// rest. On a leaf-spine the probe between servers crosses leaf, spine and
// leaf: 3 x (600 - 330 ns) = 810 ns of switch latency; the NICs are the same
// ConnectX-7 figures. What is left (frame headers, serialization, jitter)
// must be a few ns: the split adds up to the measured gap.
TEST_F(EvaluateTest, ClaimOneSplitsTheLatencyGapIntoSwitchesNicsAndTheRest) {
  const Evaluation ev = load_evaluation_text(
      "name: gap\nduration: 20ms\n"
      "cluster: {servers: 2, gpus_per_server: 2, nic_rate: 400Gbps, topology: leaf-spine, cable_delay: "
      "500ns}\n"
      "fabrics: [ib-ndr, rocev2-dcqcn-400g]\nworkloads: [{type: latency, iters: 200}]\n"
      "weights: {latency: 1}\n",
      "gap.yaml");
  const std::vector<EvalCell> cells = eval_cells(ev);
  const Written w = evaluate(ev, cells, dir_, 2);
  const auto j = nlohmann::json::parse(w.json);
  const std::string e = j["claims"][0]["evidence"].get<std::string>();
  const std::regex split(
      R"(Of the ([0-9.]+) ns between them, 810 ns is switch latency \(3 switches on the probe's path x )"
      R"(\(600 - 330 ns\)\), 0 ns the NICs' latency, (under 1|-?[0-9]+) ns the rest)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(e, m, split)) << e;
  const double gap = std::stod(m[1]);
  EXPECT_NEAR(gap, 810, 10) << e;
  const double measured = (j["figures"]["rocev2-dcqcn-400g.latency.baseline.p50_us"]["mean"].get<double>() -
                           j["figures"]["ib-ndr.latency.baseline.p50_us"]["mean"].get<double>()) *
                          1e3;
  EXPECT_NEAR(gap, measured, 0.01 * measured);
  // The answer states the gap and the switches' part of it.
  EXPECT_EQ(j["claims"][0]["answer"].get<std::string>().rfind(
                fmt::format("The gap idle is {} ns, of it 810 ns switch latency. ", report_number(gap)), 0),
            0U)
      << j["claims"][0]["answer"];
}

// SHARP runs only where the fabric offers it: a workload limited to those
// fabrics has cells on them alone, answers claim 7 against the host
// algorithm on the same fabric, and no criterion scores it (the collective
// score reads the AllReduce every fabric ran).
TEST_F(EvaluateTest, AWorkloadOnSomeFabricsAnswersClaimsButIsNotScored) {
  const char* text = R"(name: sharp
duration: 20ms
cluster: {servers: 2, gpus_per_server: 2, nic_rate: 100Gbps, topology: leaf-spine, cable_delay: 500ns}
fabrics: [ib-ndr, rocev2-dcqcn]
workloads:
  - {type: collective, name: ar, op: all_reduce, sizes: [4MiB]}
  - {type: collective, name: ar-sharp, op: all_reduce, algo: sharp, sizes: [4MiB], fabrics: [ib-ndr]}
weights: {collective: 1}
)";
  const Evaluation ev = load_evaluation_text(text, "sharp.yaml");
  const auto cells = eval_cells(ev);
  ASSERT_EQ(cells.size(), 3u);
  for (const EvalCell& c : cells) {
    if (c.workload == 1) {
      EXPECT_EQ(ev.fabrics[c.fabric].name, "ib-ndr");
    }
  }
  const Written w = evaluate(ev, cells, dir_ / "out", 2);
  const auto j = nlohmann::json::parse(w.json);
  const auto& fig = j["figures"];
  const double host = fig["ib-ndr.ar-4MiB.baseline.busbw_GBps"]["mean"].get<double>();
  const double sharp = fig["ib-ndr.ar-sharp-4MiB.baseline.busbw_GBps"]["mean"].get<double>();
  EXPECT_FALSE(fig.contains("rocev2-dcqcn.ar-sharp-4MiB.baseline.busbw_GBps"));
  const auto& claim = j["claims"][6];
  ASSERT_EQ(claim["claim"], 7);
  EXPECT_EQ(claim["verdict"], sharp > host ? "supported" : "contradicted");
  EXPECT_NE(claim["evidence"].get<std::string>().find("[ib-ndr.ar-sharp-4MiB.baseline.busbw_GBps]"),
            std::string::npos);
  ASSERT_EQ(j["scores"].size(), 1u);
  EXPECT_DOUBLE_EQ(j["scores"][0]["fabrics"]["ib-ndr"]["value"].get<double>(), host)
      << "the SHARP cell is not averaged in";
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

// MPI, storage, real-time and stencil workloads join an evaluation: each
// cell's figures land in evaluation.json and the report's tables.
TEST_F(EvaluateTest, MpiStorageAndStreamWorkloadsGiveTheirFigures) {
  const char* yaml = R"(name: beyond
cluster: {servers: 2, gpus_per_server: 2, nic_rate: 100Gbps, topology: leaf-spine, cable_delay: 500ns}
duration: 20ms
fabrics:
  - ib-ndr
  - {profile: rocev2-dcqcn, name: roce}
workloads:
  - {type: mpi, name: lat, benchmark: osu_latency, max_size: 8KiB, iterations: 20}
  - {type: mpi, name: bw, benchmark: osu_bw, min_size: 1MiB, max_size: 1MiB, iterations: 2, window: 4}
  - {type: halo, name: solver, face: 16KiB, compute: 10us, allreduce: 8B, steps: 5}
  - {type: storage, name: nvme, rw: randread, bs: 4KiB, iodepth: 8, runtime: 1ms}
  - {type: stream, name: rt, size: 4KiB, period: 10us, count: 50, deadline: 5us}
conditions:
  - baseline
weights: {mpi_latency: 1, mpi_bandwidth: 1, mpi_step: 1, storage: 1, stream: 1}
)";
  const Evaluation ev = load_evaluation_text(yaml, "beyond.yaml");
  const std::vector<EvalCell> cells = eval_cells(ev);
  check_cells(ev, cells);
  const Written w = evaluate(ev, cells, dir_, 2);
  for (size_t i = 0; i < cells.size(); ++i)
    EXPECT_TRUE(w.outcomes[i].ok) << cells[i].id << ": " << w.outcomes[i].error;
  const auto j = nlohmann::json::parse(w.json);
  std::set<std::string> ids;
  for (const auto& [id, f] : j["figures"].items()) ids.insert(id);
  for (const std::string fabric : {"ib-ndr", "roce"}) {
    for (const char* m :
         {"lat.baseline.small_latency_us", "lat.baseline.large_latency_us", "bw.baseline.bandwidth_MBps",
          "solver.baseline.step_us", "solver.baseline.communication_share", "nvme.baseline.iops",
          "nvme.baseline.clat_p99_us", "rt.baseline.deadline_misses", "rt.baseline.stream_p99_us"})
      EXPECT_TRUE(ids.contains(fabric + "." + m)) << fabric << "." << m;
  }
  EXPECT_NE(w.md.find("deadline misses"), std::string::npos);
  EXPECT_NE(w.md.find("clat p99 [us]"), std::string::npos);

  // Each criterion scores its own workload's figure, recomputed here from
  // evaluation.json: the value is the figure, 100 goes to the best fabric
  // and the other gets best/value (higher is better: value/best). The
  // bandwidth benchmark does not enter the latency criterion.
  const std::vector<std::tuple<std::string, std::string, bool>> expected = {
      {"mpi_latency", "lat.baseline.small_latency_us", true},
      {"mpi_bandwidth", "bw.baseline.bandwidth_MBps", false},
      {"mpi_step", "solver.baseline.step_us", true},
      {"storage", "nvme.baseline.clat_p99_us", true},
      {"stream", "rt.baseline.stream_p99_us", true}};
  ASSERT_EQ(j["scores"].size(), expected.size());
  double total_ib = 0;
  for (size_t k = 0; k < expected.size(); ++k) {
    const auto& [criterion, figure, lower] = expected[k];
    const auto& sc = j["scores"][k];
    EXPECT_EQ(sc["criterion"], criterion);
    EXPECT_EQ(sc["lower_is_better"], lower) << criterion;
    const double ib = j["figures"]["ib-ndr." + figure]["mean"].get<double>();
    const double roce = j["figures"]["roce." + figure]["mean"].get<double>();
    const double best = lower ? std::min(ib, roce) : std::max(ib, roce);
    EXPECT_EQ(sc["fabrics"]["ib-ndr"]["figures"], "ib-ndr." + figure) << criterion;
    EXPECT_DOUBLE_EQ(sc["fabrics"]["ib-ndr"]["value"].get<double>(), ib) << criterion;
    EXPECT_DOUBLE_EQ(sc["fabrics"]["roce"]["value"].get<double>(), roce) << criterion;
    const double score_ib = lower ? 100 * best / ib : 100 * ib / best;
    EXPECT_NEAR(sc["fabrics"]["ib-ndr"]["score"].get<double>(), score_ib, 1e-9) << criterion;
    total_ib += score_ib / 5;
  }
  EXPECT_NEAR(j["total"]["ib-ndr"].get<double>(), total_ib, 1e-9);
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

// A distance condition stretches the cluster's switch links: the same
// bandwidth test across them falls, and what cannot be stretched is refused.
TEST_F(EvaluateTest, DistanceConditionStretchesTheClusterLinks) {
  const char* yaml = R"(name: metro
cluster: {servers: 2, gpus_per_server: 1, nic_rate: 400Gbps, topology: leaf-spine, cable_delay: 150ns}
duration: 20ms
fabrics:
  - ib-ndr
workloads:
  - {type: bandwidth, size: 1MiB, iters: 50}
conditions:
  - baseline
  - {name: metro-10km, distance: 10km}
weights: {bandwidth: 1}
)";
  const Evaluation ev = load_evaluation_text(yaml, "metro.yaml");
  const std::vector<EvalCell> cells = eval_cells(ev);
  check_cells(ev, cells);
  const Written w = evaluate(ev, cells, dir_, 2);
  const auto j = nlohmann::json::parse(w.json);
  const double base = j["figures"]["ib-ndr.bandwidth.baseline.gbps"]["mean"].get<double>();
  const double far = j["figures"]["ib-ndr.bandwidth.metro-10km.gbps"]["mean"].get<double>();
  EXPECT_GT(base, 380);
  EXPECT_LT(far, base * 0.95);  // the ramp and the last ACK cross 2 x 49 us of fibre
  EXPECT_NE(w.md.find("stretched to 10km"), std::string::npos);
  const std::string bad = std::string(yaml);
  auto refused_at = [&](const std::string& from, const std::string& to) {
    std::string text = bad;
    text.replace(text.find(from), from.size(), to);
    try {
      (void)load_evaluation_text(text, "metro.yaml");
    } catch (const InputError& e) {
      return e.key();
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refused_at("distance: 10km", "distance: 10"), "conditions[1].distance");
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

// A rail-optimized cluster larger than a scalable unit (32 servers) gets a
// leaf per rail and unit, so no switch needs more than its 64 ports; one
// that fits a unit keeps the scenario it always had.
TEST(EvaluateCells, ARailClusterBeyondOneUnitHasALeafPerRailAndUnit) {
  const auto first_scenario = [](int servers) {
    const Evaluation ev = load_evaluation_text(
        "name: rails\ncluster: {servers: " + std::to_string(servers) +
            ", gpus_per_server: 8, nic_rate: 400Gbps}\nfabrics: [ib-ndr]\nworkloads: [{type: latency}]\n",
        "rails.yaml");
    return eval_cells(ev).front().scenario;
  };
  EXPECT_EQ(first_scenario(32).find("servers_per_leaf"), std::string::npos);
  const std::string big = first_scenario(128);
  EXPECT_NE(big.find("servers_per_leaf: 32"), std::string::npos) << big;
  const Topology t = build_topology(load_scenario_text(big, "big.yaml"));
  EXPECT_EQ(t.num_hosts(), 1024);
  int most = 0, leaves = 0;
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    if (t.nodes[n].kind != TopoNodeKind::kSwitch) continue;
    leaves += t.nodes[n].tier == 1;
    int ports = 0;
    for (const auto& l : t.links) ports += (l.a == static_cast<int>(n)) + (l.b == static_cast<int>(n));
    most = std::max(most, ports);
  }
  EXPECT_EQ(leaves, 8 * 4);
  EXPECT_EQ(most, 64);
}

// Past 8 units (64 rail leaves) a 64-port spine cannot reach every leaf: the
// cell's scenario names the radix and the cluster takes a core tier, still
// with no switch over 64 ports. Within it the key is not said.
TEST(EvaluateCells, ARailClusterPastEightUnitsTakesACoreTier) {
  const auto scenario = [](const std::string& cluster) {
    const Evaluation ev = load_evaluation_text("name: rails\ncluster: {" + cluster +
                                                   ", gpus_per_server: 8, nic_rate: 400Gbps}\n"
                                                   "fabrics: [ib-ndr]\nworkloads: [{type: latency}]\n",
                                               "rails.yaml");
    return eval_cells(ev).front().scenario;
  };
  EXPECT_EQ(scenario("servers: 256").find("switch_radix"), std::string::npos);
  const std::string big = scenario("servers: 512");
  ASSERT_NE(big.find("switch_radix: 64"), std::string::npos) << big;
  const Topology t = build_topology(load_scenario_text(big, "big.yaml"));
  std::vector<int> ports(t.nodes.size(), 0), tiers(4, 0);
  for (const auto& l : t.links) {
    ++ports[l.a];
    ++ports[l.b];
  }
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    ++tiers[t.nodes[n].tier];
    if (t.nodes[n].kind == TopoNodeKind::kSwitch) {
      EXPECT_LE(ports[n], 64) << t.nodes[n].name;
    }
  }
  EXPECT_EQ(tiers[3], 64);
  // A 128-port switch (51.2T at 400G) keeps 16 units on two tiers.
  EXPECT_EQ(scenario("servers: 512, switch_radix: 128").find("switch_radix"), std::string::npos);
  // A leaf that cannot hold a unit and its uplinks is refused at the key.
  try {
    (void)scenario("servers: 64, servers_per_leaf: 48");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "cluster.switch_radix");
    EXPECT_NE(std::string(e.what()).find("expected at least 96 ports"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

// Claim 4 (iWARP collectives lag at scale) quotes the connection state each
// fabric's collective took at both ends of the scale sweep, each number
// cited; the verdict rests on the busbw kept, not on the QP counts.
TEST(EvaluateClaims, IwarpAtScaleQuotesTheConnectionState) {
  const Evaluation ev = load_evaluation_text(
      "name: big\ncluster: {servers: 2, gpus_per_server: 8, nic_rate: 400Gbps}\n"
      "fabrics: [ib-ndr, iwarp-dctcp]\n"
      "workloads: [{type: collective, name: ar, op: all_reduce, sizes: [32MiB]}]\n"
      "scale: {servers: [64], workloads: [ar]}\n",
      "big.yaml");
  EvalSummary s = claims_summary(2);
  for (size_t f = 0; f < 2; ++f)
    for (const int n : {2, 64}) {
      const std::string at = fmt::format("scale.f{}.ar-32MiB.{}servers.", f, n);
      s.scale.push_back(EvalScalePoint{at + "busbw_GBps", f, 0, 0, n, "busbw_GBps",
                                       n == 2 ? 100.0 : (f == 0 ? 50.0 : 40.0)});
      s.scale.push_back(EvalScalePoint{at + "qps_per_nic", f, 0, 0, n, "qps_per_nic", n == 2 ? 8.0 : 16.0});
    }
  for (const ClaimAnswer& a : all_claims(ev, s))
    if (a.number == 4) {
      EXPECT_EQ(a.verdict, "supported") << a.evidence;
      EXPECT_NE(a.evidence.find("Connection state, QPs on the busiest NIC: ib-ndr 8 "
                                "[scale.f0.ar-32MiB.2servers.qps_per_nic] at 2 servers, 16 "
                                "[scale.f0.ar-32MiB.64servers.qps_per_nic] at 64; iwarp-dctcp 8 "),
                std::string::npos)
          << a.evidence;
      return;
    }
  FAIL() << "no claim 4";
}

// The scale section draws figures every fabric shares (here the QP count)
// as one row and one line for all, and the busbw, which differs, per fabric.
TEST(EvaluateReport, ScaleFiguresEveryFabricSharesAreShownOnce) {
  const Evaluation ev = load_evaluation_text(
      "name: big\ncluster: {servers: 2, gpus_per_server: 8, nic_rate: 400Gbps}\n"
      "fabrics: [ib-ndr, iwarp-dctcp]\n"
      "workloads: [{type: collective, name: ar, op: all_reduce, sizes: [32MiB]}]\n"
      "scale: {servers: [64], workloads: [ar]}\n",
      "big.yaml");
  EvalSummary s = claims_summary(2);
  for (size_t f = 0; f < 2; ++f)
    for (const int n : {2, 64}) {
      const std::string at = fmt::format("scale.f{}.ar-32MiB.{}servers.", f, n);
      s.scale.push_back(
          EvalScalePoint{at + "busbw_GBps", f, 0, 0, n, "busbw_GBps", n == 2 ? 100.0 : 50.0 - 10.0 * f});
      s.scale.push_back(EvalScalePoint{at + "qps_per_nic", f, 0, 0, n, "qps_per_nic", n == 2 ? 8.0 : 16.0});
    }
  const std::vector<EvalCell> cells;
  const std::vector<CellOutcome> outcomes;
  const std::string md = report_markdown(EvalReportInput{ev, cells, outcomes, s});
  const size_t qps = md.find("| ar 32MiB: QPs on the busiest NIC |");
  ASSERT_NE(qps, std::string::npos) << md;
  const std::string qp_table = md.substr(qps, md.find("\n\n", qps) - qps);
  EXPECT_NE(qp_table.find("| every fabric | 8 | 16 |"), std::string::npos) << qp_table;
  EXPECT_EQ(qp_table.find("ib-ndr"), std::string::npos) << qp_table;
  const size_t busbw = md.find("| ar 32MiB: busbw [GB/s] |");
  ASSERT_NE(busbw, std::string::npos) << md;
  const std::string busbw_table = md.substr(busbw, md.find("\n\n", busbw) - busbw);
  EXPECT_NE(busbw_table.find("| ib-ndr | 100 | 50 |"), std::string::npos) << busbw_table;
  EXPECT_NE(busbw_table.find("| iwarp-dctcp | 100 | 40 |"), std::string::npos) << busbw_table;
  // The glossary defines the terms the text names ("busbw", "QPs"), and no
  // other (nothing here mentions SHIELD).
  const size_t glossary = md.find("## Glossary");
  ASSERT_NE(glossary, std::string::npos) << md;
  EXPECT_NE(md.find("| busbw | bus bandwidth, as nccl-tests reports it", glossary), std::string::npos);
  EXPECT_NE(md.find("| QP | queue pair", glossary), std::string::npos);
  EXPECT_EQ(md.find("SHIELD"), std::string::npos) << md;
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

// A cell another evaluation's folder already finished with the same scenario
// (a sweep's other point) is copied, not run again: same results, same
// files, nothing simulated; a cell whose scenario differs runs.
TEST(EvaluateMatrix, FinishedCellsOfAnotherFolderAreCopiedNotRun) {
  const fs::path dir = fs::temp_directory_path() / ("rdmasim_reuse_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const Evaluation ev = load_evaluation_text(kSmall, "small.yaml");
  std::vector<EvalCell> cells = eval_cells(ev);
  cells.resize(4);
  const auto first = run_matrix(cells, (dir / "a").string(), 2, {}, nullptr);
  std::vector<EvalCell> changed = cells;
  changed[3].scenario += "# another scenario\n";
  const auto second = run_matrix(changed, (dir / "b").string(), 2, {}, nullptr, {(dir / "a").string()});
  for (size_t i = 0; i < cells.size(); ++i) {
    ASSERT_TRUE(first[i].ok && second[i].ok) << cells[i].id;
    EXPECT_EQ(second[i].ran, i == 3) << cells[i].id;
    EXPECT_EQ(second[i].results, first[i].results) << cells[i].id;
    for (const auto& e : fs::directory_iterator(cell_dir((dir / "a").string(), cells[i])))
      if (i != 3 || e.path().filename() != "scenario.yaml") {
        EXPECT_EQ(slurp(fs::path(cell_dir((dir / "b").string(), cells[i])) / e.path().filename()),
                  slurp(e.path()))
            << cells[i].id << " " << e.path().filename();
      }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

// Claim 5 (mis-set PFC or ECN causes loss, HOL blocking, spreading) reads
// the fabrics that run PFC. An ECN setting that slows UET (no PFC) is not
// evidence for it, and a PFC setting that changed nothing because no queue
// ever reached XOFF is said to be unexercised, not counted against PFC.
TEST(EvaluateClaims, PfcClaimReadsOnlyLosslessFabricsAndSaysWhenPfcNeverPaused) {
  const Evaluation ev = load_evaluation_text(
      "name: pfc\ncluster: {servers: 2, gpus_per_server: 2, nic_rate: 400Gbps, topology: leaf-spine}\n"
      "fabrics: [rocev2-dcqcn-400g, uet-nscc]\n"
      "workloads: [{type: incast, name: inc, senders: 3, size: 1MiB}]\n"
      "tuning: {workloads: [inc]}\n",
      "pfc.yaml");
  EvalSummary s = claims_summary(2);
  s.settings.push_back(EvalSettingDiff{"fabric.pfc.enabled", {"true", "false"}, {false, false}});
  s.tuning[0].trials.push_back(EvalKnobTrial{"fabric.pfc.enabled", "flipped", "false", "inc", "completion_us",
                                             100, 100, 0,
                                             "rocev2-dcqcn-400g.inc.tune-pfc.enabled-flipped.s1"});
  s.tuning[1].trials.push_back(EvalKnobTrial{"fabric.ecn.kmax", "x2", "3MB", "inc", "completion_us", 100, 115,
                                             0.15, "uet-nscc.inc.tune-ecn.kmax-x2.s1"});
  s.tuning[1].sensitive.emplace_back("fabric.ecn.kmax");
  EvalFigure pause;
  pause.id = "rocev2-dcqcn-400g.inc.baseline.pfc_pause_us";
  pause.metric = "pfc_pause_us";
  pause.unit = "us";
  s.figures.push_back(pause);
  for (const ClaimAnswer& a : all_claims(ev, s))
    if (a.number == 5) {
      EXPECT_EQ(a.verdict, "contradicted") << a.evidence;
      EXPECT_EQ(a.evidence.find("uet-nscc"), std::string::npos) << a.evidence;
      EXPECT_NE(
          a.evidence.find("rocev2-dcqcn-400g: PFC never paused in the tuning workloads at baseline (0 us "
                          "[rocev2-dcqcn-400g.inc.baseline.pfc_pause_us])"),
          std::string::npos)
          << a.evidence;
      return;
    }
  FAIL() << "no claim 5";
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

EvalFigure busbw_figure(const std::string& id, size_t fabric, size_t workload, size_t condition, double v) {
  return made_figure(id, fabric, workload, condition, "busbw_GBps", "GB/s", v);
}

// Claim 7 (SHARP beats host algorithms) reads each size under the loaded
// conditions too: ahead idle but not under load supports it only partly.
// Claim 12 (46-48 GB/s per 400G NIC) is not contradicted by a largest size
// where busbw is still climbing: it asks for the size they are read at.
TEST(EvaluateClaims, SharpUnderLoadAndBusbwBelowSaturation) {
  const Evaluation ev = load_evaluation_text(
      "name: sh\ncluster: {servers: 4, gpus_per_server: 4, nic_rate: 400Gbps}\n"
      "fabrics: [ib-ndr]\n"
      "workloads:\n"
      "  - {type: collective, name: ar, op: all_reduce, sizes: [32MiB]}\n"
      "  - {type: collective, name: ar-sharp, op: all_reduce, algo: sharp, sizes: [32MiB], fabrics: "
      "[ib-ndr]}\n"
      "conditions: [baseline, {name: load-50, background: {load: 50%, cdf: storage}}]\n",
      "sh.yaml");
  EvalSummary s = claims_summary(1);
  s.figures.push_back(busbw_figure("ib-ndr.ar-32MiB.baseline.busbw_GBps", 0, 0, 0, 122.3));
  s.figures.push_back(busbw_figure("ib-ndr.ar-sharp-32MiB.baseline.busbw_GBps", 0, 1, 0, 228.5));
  s.figures.push_back(busbw_figure("ib-ndr.ar-32MiB.load-50.busbw_GBps", 0, 0, 1, 61.45));
  s.figures.push_back(busbw_figure("ib-ndr.ar-sharp-32MiB.load-50.busbw_GBps", 0, 1, 1, 55.54));
  int seen = 0;
  for (const ClaimAnswer& a : all_claims(ev, s)) {
    if (a.number == 7) {
      ++seen;
      EXPECT_EQ(a.verdict, "partly supported") << a.evidence;
      EXPECT_NE(
          a.evidence.find("ib-ndr: 32MiB load-50 SHARP 55.54 GB/s [ib-ndr.ar-sharp-32MiB.load-50.busbw_GBps] "
                          "against 61.45 GB/s [ib-ndr.ar-32MiB.load-50.busbw_GBps]"),
          std::string::npos)
          << a.evidence;
      EXPECT_NE(a.finding.find("SHARP leads at 32MiB idle; the host algorithm at 32MiB load-50."),
                std::string::npos)
          << a.finding;
    }
    if (a.number == 12) {
      ++seen;
      EXPECT_EQ(a.verdict, "not measured") << a.evidence;
      EXPECT_NE(a.finding.find("the largest here is 32MiB"), std::string::npos) << a.finding;
      EXPECT_NE(a.evidence.find("30.57 GB/s per NIC"), std::string::npos) << a.evidence;
    }
  }
  EXPECT_EQ(seen, 2);
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

// A long run's throughput series keeps its first bins as they are (the
// fault and the recovery) and averages only the rest: 1000 bins of 10 us
// become the first 200 unchanged, then averages of 4, ending at the run's end.
TEST(EvaluateSummary, ThroughputSeriesKeepsTheFirstBinsAndAveragesTheRest) {
  std::string csv = "time_us,delivered_gbps,other\n";
  for (int i = 1; i <= 1000; ++i) csv += fmt::format("{},{},0\n", i * 10, i % 2 == 0 ? 400 : 0);
  const EvalThroughputSeries s = throughput_series(0, 0, 0, 0, csv);
  ASSERT_EQ(s.points.size(), 400u);
  for (size_t i = 0; i < 200; ++i) {
    EXPECT_EQ(s.points[i].first, 10.0 * static_cast<double>(i + 1));
    EXPECT_EQ(s.points[i].second, (i + 1) % 2 == 0 ? 400.0 : 0.0);
  }
  EXPECT_EQ(s.points[200].first, 2040.0);  // bins 201-204
  EXPECT_EQ(s.points[200].second, 200.0);
  EXPECT_EQ(s.points.back().first, 10000.0);
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

EvalFigure latency_figure(const std::string& id, size_t condition, const std::string& metric, double v) {
  return made_figure(id, 0, 0, condition, metric, "us", v);
}

// Claim 5 reads an incast the probe never joins: PFC pauses upstream are
// congestion spreading, and a probe tail past the threshold with them is
// head-of-line blocking (the claim in part, with no loss measured); pauses
// that leave the probe as it was are said not to have reached it, and alone
// do not support the claim.
TEST(EvaluateClaims, HeadOfLineBlockingIsReadFromAnIncastElsewhere) {
  const Evaluation ev = load_evaluation_text(
      "name: hol\ncluster: {servers: 4, gpus_per_server: 4, nic_rate: 400Gbps}\n"
      "fabrics: [rocev2-dcqcn-400g]\nworkloads: [{type: latency, iters: 5000}]\n"
      "conditions: [baseline, {name: elsewhere, incast: {senders: 8, size: 8MiB, into: elsewhere}}]\n",
      "hol.yaml");
  const auto answer = [&](double loaded_p999) {
    EvalSummary s = claims_summary(1);
    s.figures = {latency_figure("r.latency.baseline.p999_us", 0, "p999_us", 2.6),
                 latency_figure("r.latency.elsewhere.p999_us", 1, "p999_us", loaded_p999),
                 latency_figure("r.latency.elsewhere.pfc_pause_us", 1, "pfc_pause_us", 375)};
    for (const ClaimAnswer& a : all_claims(ev, s))
      if (a.number == 5) return a;
    return ClaimAnswer{};
  };
  const ClaimAnswer blocked = answer(6.0);
  EXPECT_EQ(blocked.verdict, "partly supported") << blocked.evidence;  // blocking, but no loss measured
  EXPECT_NE(blocked.evidence.find(
                "paused for 375 us [r.latency.elsewhere.pfc_pause_us] summed over the paused ports; "
                "the probe's p99.9 "
                "6 us [r.latency.elsewhere.p999_us] against 2.6 us [r.latency.baseline.p999_us] "
                "idle: head-of-line blocking"),
            std::string::npos)
      << blocked.evidence;
  const ClaimAnswer spared = answer(2.6);
  EXPECT_EQ(spared.verdict, "contradicted") << spared.evidence;
  EXPECT_NE(spared.evidence.find("the pauses did not reach the probe's path"), std::string::npos)
      << spared.evidence;
  EXPECT_EQ(spared.evidence.find("No PFC or ECN setting"), std::string::npos) << "no setting was tried";
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

// Claim 2 compares InfiniBand with RoCEv2's own fabrics (UET prices as
// Ethernet but is not RoCEv2: its 2x under load would otherwise decide it),
// and where the order fails it names the RoCEv2 fabric whose tail grew less.
TEST(EvaluateClaims, ClaimTwoNamesTheRocev2FabricWhereTheOrderFails) {
  const Evaluation ev = load_evaluation_text(
      "name: t2\ncluster: {servers: 4, gpus_per_server: 4, nic_rate: 400Gbps}\n"
      "fabrics: [ib-ndr, rocev2-dcqcn-400g, rocev2-hpcc-400g, uet-nscc]\n"
      "workloads: [{type: latency, iters: 5000}]\n"
      "conditions: [baseline, {name: load, background: {load: 50%, cdf: storage}}, "
      "{name: beside, incast: {senders: 8, size: 8MiB}}]\n",
      "t2.yaml");
  EvalSummary s = claims_summary(4);
  s.settings.push_back(EvalSettingDiff{
      "fabric.framing", {"infiniband", "rocev2", "rocev2", "uet"}, {false, false, false, false}});
  const double p999[4][3] = {
      {2.5, 6, 5.5}, {2.5, 24, 24.5}, {2.5, 8.5, 3}, {2.5, 5, 5.9}};  // [fabric][condition]
  for (size_t f = 0; f < 4; ++f)
    for (size_t c = 0; c < 3; ++c) {
      EvalFigure x = latency_figure(fmt::format("f{}.latency.c{}.p999_us", f, c), c, "p999_us", p999[f][c]);
      x.fabric = f;
      s.figures.push_back(x);
    }
  for (const ClaimAnswer& a : all_claims(ev, s))
    if (a.number == 2) {
      EXPECT_EQ(a.verdict, "partly supported") << a.evidence;
      EXPECT_EQ(
          a.finding,
          "InfiniBand's p99.9 grows less than RoCEv2's under load, not under beside (rocev2-hpcc-400g's "
          "grows 1.20x, InfiniBand's 2.20x).");
      EXPECT_EQ(a.evidence.find("uet-nscc"), std::string::npos) << a.evidence;
      return;
    }
  FAIL() << "no claim 2";
}

// Claim 9 says what a slowdown after the failure waited for: roce's
// collective, 20x slower with the link down, saw 5 retransmission timeouts,
// and the answer names the timeout settings beside the reroute times.
TEST(EvaluateClaims, ClaimNineSaysTheSlowdownWaitedForRetransmissionTimeouts) {
  const Evaluation ev = load_evaluation_text(R"(name: t9
cluster: {servers: 2, gpus_per_server: 2, nic_rate: 100Gbps, topology: leaf-spine, cable_delay: 500ns}
fabrics: [ib-ndr, {profile: rocev2-dcqcn, name: roce}]
workloads: [{type: collective, name: ar, op: all_reduce, sizes: [1MiB]}]
conditions: [baseline, {name: down, link_down: {at: 20us}}]
)",
                                             "t9.yaml");
  const std::vector<EvalCell> cells = eval_cells(ev);
  std::vector<CellOutcome> outcomes(cells.size());
  for (size_t i = 0; i < cells.size(); ++i) {
    const bool down = cells[i].condition == 1;
    const bool roce = cells[i].fabric == 1;
    outcomes[i].ok = true;
    outcomes[i].results = {
        {"scenario", {{"fabric", nlohmann::json::object()}, {"topology", nlohmann::json::object()}}},
        {"workload_results",
         {{{"finished", true}, {"busbw_GBps", down ? (roce ? 2.0 : 36.0) : 40.0}, {"time_us", 100.0}}}},
        {"network", {{"timeouts", down && roce ? 5 : 0}}}};
    if (down)
      outcomes[i].results["incident"] = {
          {"faults",
           {{{"repaired_after_us", roce ? 1100.0 : 0.0}, {"rerouted_after_us", roce ? 50100.0 : 600.0}}}}};
  }
  const EvalSummary s = summarize(ev, cells, outcomes);
  for (const ClaimAnswer& a : answer_claims(EvalReportInput{ev, cells, outcomes, s}))
    if (a.number == 9) {
      EXPECT_NE(a.evidence.find("worst slowdown under the failure 20 x [roce.ar-1MiB.baseline.busbw_GBps / "
                                "roce.ar-1MiB.down.busbw_GBps], with 5 retransmission timeouts "
                                "[roce.ar-1MiB.down.timeouts]."),
                std::string::npos)
          << a.evidence;
      EXPECT_NE(a.finding.find("until a route around it exists: roce's 20 x waited through 5."),
                std::string::npos)
          << a.finding;
      EXPECT_EQ(a.evidence.find("ib-ndr.ar-1MiB.down.timeouts"), std::string::npos) << "none there";
      return;
    }
  FAIL() << "no claim 9";
}

// Claim 2 does not judge the order of tails that a condition never moved
// (both within the threshold of idle): that order is noise.
TEST(EvaluateClaims, ClaimTwoSkipsAConditionThatNeverReachedTheProbe) {
  const Evaluation ev = load_evaluation_text(
      "name: t2\ncluster: {servers: 4, gpus_per_server: 4, nic_rate: 400Gbps}\n"
      "fabrics: [ib-ndr, rocev2-dcqcn-400g]\nworkloads: [{type: latency, iters: 5000}]\n"
      "conditions: [baseline, {name: elsewhere, incast: {senders: 8, size: 8MiB, into: elsewhere}}]\n",
      "t2.yaml");
  EvalSummary s = claims_summary(2);
  for (size_t f = 0; f < 2; ++f)
    for (size_t c = 0; c < 2; ++c) {
      EvalFigure x = latency_figure(fmt::format("f{}.latency.c{}.p999_us", f, c), c, "p999_us",
                                    c == 0 ? 2.6 : (f == 0 ? 2.55 : 2.58));
      x.fabric = f;
      s.figures.push_back(x);
    }
  for (const ClaimAnswer& a : all_claims(ev, s))
    if (a.number == 2) {
      EXPECT_EQ(a.verdict, "not measured") << a.evidence;
      EXPECT_NE(a.evidence.find(
                    "Under elsewhere, no p99.9 grew by more than 10 %: the load did not reach the probe"),
                std::string::npos)
          << a.evidence;
      return;
    }
  FAIL() << "no claim 2";
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

// Claim 4 reads every size of the scale sweep: a latency-bound size where
// iWARP keeps less of its small-cluster busbw than the others, and a
// bandwidth-bound one where it does not, support it in part, each named.
TEST(EvaluateClaims, IwarpAtScaleIsJudgedAtEverySizeSwept) {
  const Evaluation ev = load_evaluation_text(
      "name: big\ncluster: {servers: 2, gpus_per_server: 4, nic_rate: 400Gbps}\n"
      "fabrics: [ib-ndr, iwarp-dctcp-400g]\n"
      "workloads: [{type: collective, name: ar, op: all_reduce, sizes: [1MiB, 32MiB]}]\n"
      "scale: {servers: [8], workloads: [ar]}\n",
      "big.yaml");
  EvalSummary s = claims_summary(2);
  // (fabric, point): busbw at 2 and at 8 servers.
  const double busbw[2][2][2] = {{{27.07, 19.31}, {173.2, 108.1}}, {{23.46, 14.38}, {171.2, 106.0}}};
  const char* size[2] = {"1MiB", "32MiB"};
  for (size_t f = 0; f < 2; ++f)
    for (size_t p = 0; p < 2; ++p)
      for (const int n : {2, 8})
        s.scale.push_back(EvalScalePoint{fmt::format("scale.f{}.ar-{}.{}servers.busbw_GBps", f, size[p], n),
                                         f, 0, p, n, "busbw_GBps", busbw[f][p][n == 2 ? 0 : 1]});
  for (const ClaimAnswer& a : all_claims(ev, s))
    if (a.number == 4) {
      EXPECT_EQ(a.verdict, "partly supported") << a.evidence;
      EXPECT_NE(a.evidence.find("At ar 1MiB, iWARP keeps 61.3 % of its smallest cluster's figure, the others "
                                "71.33 % at the least."),
                std::string::npos)
          << a.evidence;
      EXPECT_EQ(a.finding, "iWARP lags at ar 1MiB, not at ar 32MiB.");
      EXPECT_NE(a.evidence.find("[scale.f1.ar-32MiB.8servers.busbw_GBps]"), std::string::npos) << a.evidence;
      return;
    }
  FAIL() << "no claim 4";
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

// The report says what each condition does in words a reader can check
// against the evaluation file: an incast elsewhere is not the incast into
// the receiver, a misconfiguration names what it mis-sets and where.
// And the decision says whether one criterion decides the recommendation.
TEST(EvaluateReport, ConditionsAreDescribedAndTheRecommendationsDependenceIsNamed) {
  const Evaluation ev = load_evaluation_text(R"(name: words
cluster: {servers: 2, gpus_per_server: 4, nic_rate: 100Gbps, topology: leaf-spine, cable_delay: 500ns}
fabrics:
  - ib-ndr
  - {profile: rocev2-dcqcn, name: roce}
workloads:
  - {type: latency, iters: 100}
  - {type: incast, name: inc, senders: 2, size: 64KiB}
conditions:
  - baseline
  - {name: elsewhere, incast: {senders: 2, size: 1MiB, into: elsewhere}, workloads: [latency]}
  - {name: headroom, incast: {senders: 2, size: 1MiB}, misconfig: [{switch: all, set: {pfc: {headroom: 2KB}}}], fabrics: [roce], workloads: [latency]}
  - {name: down, link_down: {at: 20us}}
weights: {latency: 1, tail_latency: 1}
)",
                                             "words.yaml");
  const std::vector<EvalCell> cells = eval_cells(ev);
  std::vector<CellOutcome> outcomes(cells.size());
  for (CellOutcome& o : outcomes) o.error = "not run";
  EvalSummary s = summarize(ev, cells, outcomes);
  EvalScore lat{"latency",
                1,
                {2.0, 2.2},
                {100, 90},
                {"ib-ndr.latency.baseline.p50_us", "roce.latency.baseline.p50_us"},
                "us",
                true};
  EvalScore tail{"tail_latency", 1, {9.0, 3.0}, {33.3, 100}, {"a", "b"}, "us", true};
  s.scores = {lat, tail};
  s.total = {66.65, 95};
  s.best = 1;
  const std::string md = report_markdown(EvalReportInput{ev, cells, outcomes, s});
  EXPECT_NE(
      md.find("an incast of 2 senders x 1MiB into another host, the measured workload's source among its "
              "senders: the measured traffic never enters the congested port"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("mis-set on switch all: pfc.headroom = 2KB; on roce only"), std::string::npos) << md;
  EXPECT_NE(md.find("link auto (the first leaf's first uplink) down at 20us"), std::string::npos) << md;
  // The conditions are described before the decision that names them.
  ASSERT_NE(md.find("## Conditions"), std::string::npos);
  EXPECT_LT(md.find("## Conditions"), md.find("## Decision"));
  // The incast's per-condition chart has no empty slots for conditions it never ran under.
  const std::string html = report_html(EvalReportInput{ev, cells, outcomes, s});
  const std::string chart = chart_titled(html, "inc: completion");
  ASSERT_FALSE(chart.empty());
  EXPECT_NE(chart.find(">down<"), std::string::npos) << chart;
  EXPECT_EQ(chart.find(">elsewhere<"), std::string::npos) << chart;
  EXPECT_EQ(chart.find(">headroom<"), std::string::npos) << chart;
  // Each fabric's prices, and that equal defaults decide nothing.
  EXPECT_NE(
      md.find("Priced: ib-ndr with the infiniband inputs; roce with the roce inputs. Every fabric costs the "
              "same here"),
      std::string::npos)
      << md;
  EXPECT_NE(
      md.find("Left out one at a time, criteria change the lead: without tail_latency, ib-ndr leads (100 "
              "against 90)."),
      std::string::npos)
      << md;
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

// Claim 3 ("iWARP has higher latency ..., especially under load") reads the
// tails under load too: higher idle but not under a load where a RoCE
// fabric's tail is the longer is the claim in part.
TEST(EvaluateClaims, IwarpLatencyIsReadUnderLoadToo) {
  const Evaluation ev = load_evaluation_text(
      "name: c3\ncluster: {servers: 4, gpus_per_server: 4, nic_rate: 400Gbps}\n"
      "fabrics: [rocev2-dcqcn-400g, iwarp-dctcp-400g, ib-ndr]\nworkloads: [{type: latency, iters: 5000}]\n"
      "conditions: [baseline, {name: beside, incast: {senders: 8, size: 8MiB}}]\n",
      "c3.yaml");
  EvalSummary s = claims_summary(3);
  const auto add = [&](size_t f, size_t c, const std::string& metric, double v) {
    EvalFigure x = latency_figure(fmt::format("f{}.latency.c{}.{}", f, c, metric), c, metric, v);
    x.fabric = f;
    s.figures.push_back(x);
  };
  add(0, 0, "p50_us", 2.27);
  add(1, 0, "p50_us", 3.14);
  add(2, 0, "p50_us", 1.99);
  add(0, 1, "p999_us", 24.68);
  add(1, 1, "p999_us", 22.31);
  add(2, 1, "p999_us", 5.44);
  for (const ClaimAnswer& a : all_claims(ev, s))
    if (a.number == 3) {
      EXPECT_EQ(a.verdict, "partly supported") << a.evidence;
      // InfiniBand is a fabric without TCP too: every one is compared.
      EXPECT_NE(
          a.evidence.find("Under beside, p99.9: iwarp-dctcp-400g 22.31 us [f1.latency.c1.p999_us] against "
                          "rocev2-dcqcn-400g 24.68 us [f0.latency.c1.p999_us], ib-ndr 5.44 us "
                          "[f2.latency.c1.p999_us]."),
          std::string::npos)
          << a.evidence;
      // 3.14 - 2.27 and 3.14 - 1.99 us idle.
      EXPECT_EQ(
          a.finding,
          "The gap idle is 870-1150 ns. The order holds idle; not under beside, where rocev2-dcqcn-400g has "
          "the longer tail (iWARP's is longer than the other 1 of 2).");
      return;
    }
  FAIL() << "no claim 3";
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

// Claim 12 gives NCCL's cost model once when every fabric gets the same (it
// knows a fabric by its link rate alone): 32 MiB in 1000 us on 16 ranks is
// 33.55 GB/s algbw, x 2 x 15/16 = 62.91 GB/s busbw, 15.73 per NIC of 4.
TEST(EvaluateClaims, BusbwClaimStatesNcclsModelOnce) {
  const Evaluation ev = load_evaluation_text(
      "name: m\ncluster: {servers: 4, gpus_per_server: 4, nic_rate: 400Gbps}\n"
      "fabrics: [ib-ndr, rocev2-dcqcn-400g]\n"
      "workloads: [{type: collective, name: ar, op: all_reduce, sizes: [32MiB]}]\n",
      "m.yaml");
  EvalSummary s = claims_summary(2);
  for (size_t f = 0; f < 2; ++f) {
    s.figures.push_back(made_figure(fmt::format("f{}.ar-32MiB.baseline.busbw_GBps", f), f, 0, 0, "busbw_GBps",
                                    "GB/s", 120.0));
    s.figures.push_back(made_figure(fmt::format("f{}.ar-32MiB.baseline.nccl_model_us", f), f, 0, 0,
                                    "nccl_model_us", "us", 1000.0));
  }
  for (const ClaimAnswer& a : all_claims(ev, s))
    if (a.number == 12) {
      const std::string once =
          "NCCL's cost model takes 1000 us [f0.ar-32MiB.baseline.nccl_model_us "
          "f1.ar-32MiB.baseline.nccl_model_us] at this size on each, i.e. 15.73 GB/s per NIC.";
      const size_t at = a.evidence.find(once);
      EXPECT_NE(at, std::string::npos) << a.evidence;
      EXPECT_EQ(a.evidence.find("NCCL's cost model", at + 1), std::string::npos) << a.evidence;
      return;
    }
  FAIL() << "no claim 12";
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

// The text of the report section titled `title` (to the next section).
std::string md_section(const std::string& md, const std::string& title) {
  const size_t at = md.find("\n## " + title + "\n");
  if (at == std::string::npos) return "";
  return md.substr(at, md.find("\n## ", at + 1) - at);
}

// An OSU bandwidth test is reported by what it measures: its workload table
// has bandwidth and no latency columns (which read n/a in every row), and
// the table beside idle gives its bandwidth under load with the ratio to
// idle, not "did not finish" for a latency it never measures. An OSU
// latency test keeps its latency columns and gets no bandwidth one.
TEST_F(EvaluateTest, AnOsuBandwidthTestIsReportedByItsBandwidth) {
  const char* yaml = R"(name: osubw
cluster: {servers: 2, gpus_per_server: 2, nic_rate: 100Gbps, topology: leaf-spine, cable_delay: 500ns}
duration: 20ms
fabrics:
  - ib-ndr
  - {profile: rocev2-dcqcn, name: roce}
workloads:
  - {type: mpi, name: lat, benchmark: osu_latency, max_size: 4KiB, iterations: 20, warmup: 2}
  - {type: mpi, name: bw, benchmark: osu_bw, max_size: 64KiB, iterations: 5, warmup: 1}
conditions:
  - baseline
  - {name: load, background: {load: 30%, cdf: storage}}
weights: {mpi_latency: 1, mpi_bandwidth: 1, congestion: 1}
)";
  const Evaluation ev = load_evaluation_text(yaml, "osubw.yaml");
  const std::vector<EvalCell> cells = eval_cells(ev);
  check_cells(ev, cells);
  const Written w = evaluate(ev, cells, dir_, 2);
  for (size_t i = 0; i < cells.size(); ++i)
    ASSERT_TRUE(w.outcomes[i].ok) << cells[i].id << ": " << w.outcomes[i].error;
  const auto j = nlohmann::json::parse(w.json);
  const auto mean = [&](const std::string& id) {
    EXPECT_TRUE(j["figures"].contains(id)) << id;
    return j["figures"].contains(id) ? j["figures"][id]["mean"].get<double>() : 0.0;
  };

  const std::string bw = md_section(w.md, "Workload: bw (mpi)");
  ASSERT_FALSE(bw.empty()) << w.md;
  EXPECT_NE(bw.find("| fabric | condition | bandwidth [MB/s] | drops [pkts] |"), std::string::npos) << bw;
  EXPECT_EQ(bw.find("smallest message"), std::string::npos) << bw;
  EXPECT_EQ(bw.find("largest message"), std::string::npos) << bw;
  EXPECT_EQ(bw.find("| n/a"), std::string::npos) << bw;
  EXPECT_NE(bw.find("| roce | load | " + report_number(mean("roce.bw.load.bandwidth_MBps")) + " |"),
            std::string::npos)
      << bw;
  const std::string lat = md_section(w.md, "Workload: lat (mpi)");
  ASSERT_FALSE(lat.empty()) << w.md;
  EXPECT_NE(lat.find("| fabric | condition | smallest message [us] | largest message [us] | drops [pkts] |"),
            std::string::npos)
      << lat;
  EXPECT_EQ(lat.find("bandwidth [MB/s]"), std::string::npos) << lat;

  // Beside idle: the bandwidth under load, with its ratio to the same fabric idle.
  std::string row = "| bw, load | bandwidth [MB/s] |";
  for (const std::string f : {"ib-ndr", "roce"}) {
    const double x = mean(f + ".bw.load.bandwidth_MBps");
    const double b = mean(f + ".bw.baseline.bandwidth_MBps");
    ASSERT_GT(b, 0) << f;
    row += fmt::format(" {} (x{:.3g}) |", report_number(x), x / b);
  }
  EXPECT_NE(w.md.find(row), std::string::npos) << row << "\n" << w.md;
  EXPECT_EQ(w.md.find("| bw, load | smallest message"), std::string::npos) << w.md;

  // The bandwidth criterion scores the MB/s, higher better.
  bool scored = false;
  for (const auto& sc : j["scores"])
    if (sc["criterion"] == "mpi_bandwidth") {
      scored = true;
      EXPECT_EQ(sc["lower_is_better"], false);
      EXPECT_EQ(sc["fabrics"]["roce"]["figures"], "roce.bw.baseline.bandwidth_MBps");
    }
  EXPECT_TRUE(scored) << j["scores"].dump(2);
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

// The `receiver:` of the incast a condition adds to each workload's cell.
std::map<std::string, std::string> incast_receivers(const Evaluation& ev) {
  std::map<std::string, std::string> out;
  for (const EvalCell& c : eval_cells(ev)) {
    if (ev.conditions[c.condition].incast_senders == 0) continue;
    const YAML::Node root = YAML::Load(c.scenario);
    for (const auto& w : root["workload"])
      if (w["type"].Scalar() == "incast" && w["senders"].Scalar() == "2")
        out[ev.workloads[c.workload].name] = w["receiver"].Scalar();
  }
  return out;
}

// An incast beside a workload converges on the host that workload's traffic
// arrives at, for every type that has one: OSU's point-to-point tests send
// from rank 0 to rank 1 (hosts: [0, 4] puts rank 1 on host 4, which must
// take it, not host 0, rank 0's sender); osu_mbw_mr's first pair sends to
// the rank half the ranks up; NVMe-oF reads arrive at the initiator and
// writes at the target; a stream and a perftest at dst; a measured incast
// at its own receiver. Collectives, where every host receives, take host 0.
TEST(EvaluateCells, AnIncastConvergesOnEachWorkloadsReceivingHost) {
  const Evaluation ev = load_evaluation_text(R"(name: recv
cluster: {servers: 2, gpus_per_server: 4, nic_rate: 100Gbps, topology: leaf-spine}
duration: 20ms
fabrics: [ib-ndr]
workloads:
  - {type: mpi, name: lat, benchmark: osu_latency, max_size: 4KiB}
  - {type: mpi, name: bw, benchmark: osu_bw, max_size: 64KiB}
  - {type: mpi, name: bibw, benchmark: osu_bibw, max_size: 64KiB, hosts: [5, 2]}
  - {type: mpi, name: mbw, benchmark: osu_mbw_mr, max_size: 64KiB}
  - {type: mpi, name: mbw-placed, benchmark: osu_mbw_mr, max_size: 64KiB, hosts: [7, 6, 1, 3]}
  - {type: mpi, name: ar, benchmark: osu_allreduce, max_size: 64KiB}
  - {type: storage, name: rd, rw: randread, bs: 4KiB, iodepth: 8, initiators: [3]}
  - {type: storage, name: wr, rw: randwrite, bs: 4KiB, iodepth: 8}
  - {type: storage, name: mix, rw: randrw, rwmixread: 30%, bs: 4KiB, iodepth: 8, targets: [6]}
  - {type: stream, name: rt, size: 4KiB, period: 10us, count: 50, deadline: 20us, src: 1, dst: 5}
  - {type: latency, iters: 50}
  - {type: incast, name: in, senders: 3, size: 64KiB, receiver: 7}
  - {type: collective, name: nccl, op: all_reduce, sizes: [64KiB]}
conditions:
  - baseline
  - {name: beside, incast: {senders: 2, size: 64KiB}}
weights: {mpi_latency: 1}
)",
                                             "recv.yaml");
  check_cells(ev, eval_cells(ev));
  const std::map<std::string, std::string> expected = {
      {"lat", "4"},     {"bw", "4"}, {"bibw", "2"}, {"mbw", "4"}, {"mbw-placed", "1"},
      {"ar", "0"},      {"rd", "3"}, {"wr", "7"},   {"mix", "6"}, {"rt", "5"},
      {"latency", "4"}, {"in", "7"}, {"nccl", "0"}};
  EXPECT_EQ(incast_receivers(ev), expected);
}

// And it reaches the measured traffic: osu_bw's bandwidth falls beside an
// incast into its receiver, x0.84 here (into host 0, its sender, where the
// incast meets only the windows' acknowledgements, x0.96). No warmup: the
// incast starts with the run and would be over before the timed iterations.
TEST_F(EvaluateTest, AnIncastBesideOsuBwSlowsItsReceiver) {
  const Evaluation ev = load_evaluation_text(R"(name: bwinc
cluster: {servers: 2, gpus_per_server: 2, nic_rate: 100Gbps, topology: leaf-spine, cable_delay: 500ns}
duration: 20ms
fabrics: [ib-ndr]
workloads:
  - {type: mpi, name: bw, benchmark: osu_bw, min_size: 64KiB, max_size: 64KiB, iterations: 20, warmup: 0}
conditions:
  - baseline
  - {name: beside, incast: {senders: 2, size: 8MiB}}
weights: {mpi_bandwidth: 1}
)",
                                             "bwinc.yaml");
  const std::vector<EvalCell> cells = eval_cells(ev);
  check_cells(ev, cells);
  const Written w = evaluate(ev, cells, dir_, 2);
  for (size_t i = 0; i < cells.size(); ++i)
    ASSERT_TRUE(w.outcomes[i].ok) << cells[i].id << ": " << w.outcomes[i].error;
  const auto j = nlohmann::json::parse(w.json);
  const double idle = j["figures"]["ib-ndr.bw.baseline.bandwidth_MBps"]["mean"].get<double>();
  const double beside = j["figures"]["ib-ndr.bw.beside.bandwidth_MBps"]["mean"].get<double>();
  EXPECT_LT(beside, 0.9 * idle) << "idle " << idle << " MB/s, beside the incast " << beside << " MB/s";
}

}  // namespace
}  // namespace rdmasim

namespace rdmasim {
namespace {

// Claim 1 is about RoCEv2: UET prices as Ethernet (the RoCE cost family)
// but is not RoCEv2, so against InfiniBand, UET and iWARP alone it is not
// measured rather than answered with UET's latency; with a RoCEv2 fabric
// beside UET it reads that one only. The framing is the cells' where they
// give it, else the profile's.
TEST(EvaluateClaims, ClaimOneComparesInfinibandWithRocev2FramingOnly) {
  const auto claim_one = [](const std::string& fabrics, const std::vector<double>& p50,
                            const std::vector<std::string>& framing) {
    const Evaluation ev = load_evaluation_text(
        "name: t1\ncluster: {servers: 2, gpus_per_server: 2}\n"
        "fabrics: " +
            fabrics + "\nworkloads: [{type: latency, iters: 100}]\n",
        "t1.yaml");
    EvalSummary s = claims_summary(p50.size());
    if (!framing.empty())
      s.settings.push_back(
          EvalSettingDiff{"fabric.framing", framing, std::vector<bool>(framing.size(), false)});
    for (size_t f = 0; f < p50.size(); ++f) {
      EvalFigure x = latency_figure(ev.fabrics[f].name + ".latency.baseline.p50_us", 0, "p50_us", p50[f]);
      x.fabric = f;
      s.figures.push_back(x);
    }
    for (const ClaimAnswer& a : all_claims(ev, s))
      if (a.number == 1) return a;
    ADD_FAILURE() << "no claim 1";
    return ClaimAnswer{};
  };
  for (const bool from_cells : {true, false}) {
    const ClaimAnswer none = claim_one(
        "[ib-ndr, uet-nscc, iwarp-dctcp-400g]", {1.293, 1.565, 3.1},
        from_cells ? std::vector<std::string>{"infiniband", "uet", "iwarp"} : std::vector<std::string>{});
    EXPECT_EQ(none.verdict, "not measured") << none.evidence;
    EXPECT_EQ(none.evidence.find("uet-nscc"), std::string::npos) << none.evidence;
    EXPECT_EQ(none.finding,
              "Needs an InfiniBand and a RoCEv2 fabric (UET is not one) with a latency workload idle.");

    // UET's 1.2 us would contradict the claim; RoCEv2's 1.8 us supports it.
    const ClaimAnswer one = claim_one(
        "[ib-ndr, uet-nscc, rocev2-dcqcn-400g]", {1.293, 1.2, 1.8},
        from_cells ? std::vector<std::string>{"infiniband", "uet", "rocev2"} : std::vector<std::string>{});
    EXPECT_NE(one.verdict, "not measured");
    EXPECT_NE(one.verdict, "contradicted") << one.evidence;
    EXPECT_NE(one.evidence.find(
                  "ib-ndr 1.293 us [ib-ndr.latency.baseline.p50_us] against rocev2-dcqcn-400g 1.8 us"),
              std::string::npos)
        << one.evidence;
    EXPECT_EQ(one.evidence.find("uet-nscc"), std::string::npos) << one.evidence;
  }
}

}  // namespace
}  // namespace rdmasim
