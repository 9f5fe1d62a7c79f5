#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/cfg_node.h"
#include "config/scenario.h"
#include "evaluate/tco.h"
#include "fabric/profiles.h"
#include "support/input_error_of.h"

namespace rdmasim {
namespace {

// Two leaves of four hosts each, one spine, two uplinks per leaf.
BillOfMaterials small_bom() {
  BillOfMaterials b;
  b.nics = 8;
  b.switches = 3;
  b.switch_ports_used = 16;  // 8 host-facing + 4 fabric links x 2 ends
  b.host_links = 8;
  b.fabric_links = 4;
  b.link_gbps = 400;
  return b;
}

// Numbers chosen so every intermediate is exact in binary floating point.
CostInputs round_inputs() {
  CostInputs in;
  in.family = CostFamily::kRoce;
  in.years = 2;
  in.nic_usd = 1000;
  in.switch_port_usd = 250;
  in.host_link_usd = 300;
  in.fabric_link_usd = 500;
  in.nic_w = 25;
  in.switch_port_w = 25;
  in.usd_per_kwh = 0.125;
  in.pue = 1.5;
  in.licence_usd_per_switch_year = 1000;
  in.staff_fte_per_100_switches = 2;
  in.staff_salary_usd = 100000;
  in.staff_overhead = 1.5;
  return in;
}

const CostLine& line(const CostResult& r, const std::string& item) {
  for (const CostLine& l : r.lines) {
    if (l.item == item) return l;
  }
  throw std::out_of_range("no line " + item);
}

CostInputs load(const std::string& yaml, CostFamily family) {
  return load_cost_inputs(CfgNode::load_string(yaml, "eval.yaml").child("cost"), family);
}

TEST(TcoCompute, RecomputesExactlyFromItsInputs) {
  const CostResult r = compute_tco(small_bom(), round_inputs());
  ASSERT_TRUE(r.applicable);
  ASSERT_EQ(r.lines.size(), 8u);
  // By hand: counts x prices.
  EXPECT_EQ(line(r, "NICs").usd, 8000);          // 8 x 1000
  EXPECT_EQ(line(r, "Switches").usd, 4000);      // 16 x 250
  EXPECT_EQ(line(r, "Host links").usd, 2400);    // 8 x 300
  EXPECT_EQ(line(r, "Fabric links").usd, 2000);  // 4 x 500
  // 200 W x 1.5 x 8760 h x 2 y / 1000 = 5256 kWh x 0.125
  EXPECT_EQ(line(r, "NIC power").usd, 657);
  // 400 W x 1.5 x 8760 h x 2 y / 1000 = 10512 kWh x 0.125
  EXPECT_EQ(line(r, "Switch power").usd, 1314);
  EXPECT_EQ(line(r, "Licences").usd, 6000);  // 3 x 1000 x 2
  EXPECT_EQ(line(r, "Staff").usd, 18000);    // 3/100 x 2 FTE x 100000 x 1.5 x 2
  EXPECT_EQ(r.capex, 16400);
  EXPECT_EQ(r.opex, 25971);
  EXPECT_EQ(r.total, 42371);
  for (const CostLine& l : r.lines) {
    EXPECT_TRUE(l.category == "capex" || l.category == "opex") << l.item;
  }
  EXPECT_EQ(line(r, "NICs").category, "capex");
  EXPECT_EQ(line(r, "Staff").category, "opex");

  EXPECT_EQ(line(r, "NICs").formula, "8 NICs x 1000 USD");
  EXPECT_EQ(line(r, "NIC power").formula, "8 NICs x 25 W x PUE 1.5 x 8760 h x 2 y / 1000 x 0.125 USD/kWh");
  EXPECT_EQ(line(r, "Staff").formula, "3 switches x 2 FTE/100 switches x 100000 USD/y x 1.5 overhead x 2 y");
  EXPECT_EQ(line(r, "NICs").inputs, (std::vector<std::string>{"bom.nics", "nic"}));

  // 42371 USD over 2 x 8760 h; a 36 s iteration is 1/100 of an hour.
  EXPECT_DOUBLE_EQ(usd_per_hour(r, 2), 42371.0 / 17520.0);
  EXPECT_DOUBLE_EQ(usd_per_iteration(r, 2, 36), 42371.0 / 17520.0 / 100);
  EXPECT_EQ(usd_per(r.total, 50), 847.42);  // e.g. USD per GB/s of busbw
  EXPECT_THROW((void)usd_per(r.total, 0), std::invalid_argument);
}

TEST(TcoCompute, IdealNetworkIsNotApplicable) {
  const CostResult r = compute_tco(small_bom(), default_cost_inputs(CostFamily::kIdeal));
  EXPECT_FALSE(r.applicable);
  EXPECT_TRUE(r.lines.empty());
  EXPECT_EQ(r.total, 0);
  EXPECT_EQ(cost_result_json(r)["total"], "n/a");
  EXPECT_TRUE(cost_input_info(CostFamily::kIdeal).empty());
  EXPECT_THROW((void)usd_per_hour(r, 5), std::invalid_argument);
  EXPECT_THROW((void)usd_per_iteration(r, 5, 1), std::invalid_argument);
  const CostInputs loaded = load("cost: {years: 3}\n", CostFamily::kIdeal);
  EXPECT_EQ(loaded.family, CostFamily::kIdeal);
  EXPECT_EQ(cost_inputs_json(loaded), nlohmann::ordered_json({{"family", "ideal"}}));
}

TEST(TcoLoad, ChangingTheNicPriceChangesOnlyTheNicLine) {
  const BillOfMaterials bom = small_bom();
  const CostResult base = compute_tco(bom, load("cost: {years: 5}\n", CostFamily::kInfiniband));
  const CostInputs changed_in = load("cost:\n  infiniband:\n    nic: 2600\n", CostFamily::kInfiniband);
  EXPECT_EQ(changed_in.nic_usd, 2600);
  const CostResult changed = compute_tco(bom, changed_in);
  ASSERT_EQ(base.lines.size(), changed.lines.size());
  for (size_t i = 0; i < base.lines.size(); ++i) {
    if (base.lines[i].item == "NICs") {
      EXPECT_EQ(changed.lines[i].usd, 8 * 2600);
      EXPECT_EQ(changed.lines[i].formula, "8 NICs x 2600 USD");
    } else {
      EXPECT_EQ(changed.lines[i].usd, base.lines[i].usd) << base.lines[i].item;
      EXPECT_EQ(changed.lines[i].formula, base.lines[i].formula) << base.lines[i].item;
    }
  }
  const double delta = 8 * (2600 - default_cost_inputs(CostFamily::kInfiniband).nic_usd);
  EXPECT_DOUBLE_EQ(changed.capex - base.capex, delta);
  EXPECT_EQ(changed.opex, base.opex);
  EXPECT_DOUBLE_EQ(changed.total - base.total, delta);
  // Another family's price does not reach this one.
  EXPECT_EQ(load("cost:\n  roce:\n    nic: 2600\n", CostFamily::kInfiniband).nic_usd,
            default_cost_inputs(CostFamily::kInfiniband).nic_usd);
}

// The same for every input: raising it changes exactly the lines whose
// `inputs` name it.
TEST(TcoLoad, EachInputChangesExactlyTheLinesThatNameIt) {
  const BillOfMaterials bom = small_bom();
  const CostResult base = compute_tco(bom, default_cost_inputs(CostFamily::kRoce));
  for (const CostInputInfo& info : cost_input_info(CostFamily::kRoce)) {
    const std::string yaml = info.key == "years" ? "cost: {years: 6}\n"
                                                 : "cost:\n  roce:\n    " + info.key + ": " +
                                                       std::to_string(info.value + 1) + "\n";
    const CostResult changed = compute_tco(bom, load(yaml, CostFamily::kRoce));
    ASSERT_EQ(changed.lines.size(), base.lines.size());
    int changed_lines = 0;
    for (size_t i = 0; i < base.lines.size(); ++i) {
      const std::vector<std::string>& uses = base.lines[i].inputs;
      const bool named = std::find(uses.begin(), uses.end(), info.key) != uses.end();
      EXPECT_EQ(changed.lines[i].usd != base.lines[i].usd, named) << info.key << " -> " << base.lines[i].item;
      changed_lines += named ? 1 : 0;
    }
    EXPECT_GT(changed_lines, 0) << info.key << " is used by no line";
  }
}

TEST(TcoLoad, AbsentSectionsKeepTheDefaults) {
  const CostInputs in = load("cost: {}\n", CostFamily::kIwarp);
  const CostInputs def = default_cost_inputs(CostFamily::kIwarp);
  EXPECT_EQ(cost_inputs_json(in), cost_inputs_json(def));
  EXPECT_EQ(in.years, 5);
  EXPECT_EQ(cost_inputs_json(in)["family"], "iwarp");
}

TEST(TcoLoad, RefusesUnknownKeysNegativePricesAndWrongTypes) {
  // Line numbers below refer to this text.
  const std::string yaml =
      "cost:\n"
      "  years: 5\n"
      "  roce:\n"
      "    nci: 1500\n";
  const InputError unknown = testing::input_error_of([&] { (void)load(yaml, CostFamily::kRoce); });
  EXPECT_EQ(unknown.key(), "cost.roce.nci");
  EXPECT_EQ(unknown.line(), 4);
  EXPECT_EQ(unknown.file(), "eval.yaml");
  EXPECT_NE(unknown.message().find("nic"), std::string::npos) << unknown.message();

  // Checked even when another family is evaluated.
  EXPECT_EQ(testing::input_error_of([&] { (void)load(yaml, CostFamily::kInfiniband); }).key(),
            "cost.roce.nci");

  const InputError negative = testing::input_error_of(
      [] { (void)load("cost:\n  infiniband:\n    switch_port: -3\n", CostFamily::kInfiniband); });
  EXPECT_EQ(negative.key(), "cost.infiniband.switch_port");
  EXPECT_EQ(negative.line(), 3);

  const InputError wrong_type =
      testing::input_error_of([] { (void)load("cost:\n  iwarp:\n    pue: high\n", CostFamily::kIwarp); });
  EXPECT_EQ(wrong_type.key(), "cost.iwarp.pue");
  EXPECT_EQ(wrong_type.line(), 3);

  const InputError pue_below_one =
      testing::input_error_of([] { (void)load("cost:\n  iwarp:\n    pue: 0.9\n", CostFamily::kIwarp); });
  EXPECT_EQ(pue_below_one.key(), "cost.iwarp.pue");

  const InputError bad_family =
      testing::input_error_of([] { (void)load("cost:\n  infiniband2: {nic: 1}\n", CostFamily::kRoce); });
  EXPECT_EQ(bad_family.key(), "cost.infiniband2");
  EXPECT_EQ(bad_family.line(), 2);

  const InputError zero_years =
      testing::input_error_of([] { (void)load("cost: {years: 0}\n", CostFamily::kRoce); });
  EXPECT_EQ(zero_years.key(), "cost.years");
}

TEST(TcoDefaults, EveryDefaultHasASourceAndAssumptionsARange) {
  for (CostFamily f : {CostFamily::kInfiniband, CostFamily::kRoce, CostFamily::kIwarp}) {
    const std::vector<CostInputInfo> info = cost_input_info(f);
    const nlohmann::ordered_json j = cost_inputs_json(default_cost_inputs(f));
    // Every editable input is listed, and with the value the defaults use.
    EXPECT_EQ(info.size() + 1, j.size()) << cost_family_name(f);  // + "family"
    for (const CostInputInfo& i : info) {
      SCOPED_TRACE(std::string(cost_family_name(f)) + "." + i.key);
      EXPECT_FALSE(i.source.empty());
      EXPECT_FALSE(i.unit.empty());
      ASSERT_TRUE(j.contains(i.key));
      EXPECT_EQ(j[i.key].get<double>(), i.value);
      EXPECT_LE(i.low, i.value);
      EXPECT_LE(i.value, i.high);
      if (i.source.rfind("assumption:", 0) == 0) {
        EXPECT_LT(i.low, i.high) << "an assumption needs a range to vary";
      } else {
        EXPECT_NE(i.source.find("http"), std::string::npos) << "a citation names where: " << i.source;
      }
    }
  }
}

TEST(TcoFamily, MapsTheShippedProfilesAndRefusesOthers) {
  const std::map<std::string, CostFamily> expected = {
      {"ethernet-lossy", CostFamily::kRoce},    {"ideal", CostFamily::kIdeal},
      {"rocev2-dcqcn", CostFamily::kRoce},      {"rocev2-dcqcn-mlx", CostFamily::kRoce},
      {"rocev2-dcqcn-400g", CostFamily::kRoce}, {"rocev2-dctcp", CostFamily::kRoce},
      {"rocev2-hpcc", CostFamily::kRoce},       {"rocev2-hpcc-400g", CostFamily::kRoce},
      {"rocev2-ar", CostFamily::kRoce},         {"uet-nscc", CostFamily::kRoce},
      {"uet-nscc-rccc", CostFamily::kRoce},     {"ib-ndr", CostFamily::kInfiniband},
      {"ib-hdr", CostFamily::kInfiniband},      {"iwarp-cubic", CostFamily::kIwarp},
      {"iwarp-dctcp", CostFamily::kIwarp},      {"iwarp-dctcp-400g", CostFamily::kIwarp},
  };
  for (const auto& [name, family] : expected) EXPECT_EQ(cost_family_of(name), family) << name;
  // Every shipped profile is covered, so a new one fails here until mapped.
  for (const std::string& name : profile_names()) {
    EXPECT_TRUE(expected.contains(name)) << name;
    EXPECT_NO_THROW((void)cost_family_of(name)) << name;
  }
  for (const char* bad : {"", "ib-", "infiniband", "roce", "iwarp", "ethernet", "IB-NDR", "ideal2"}) {
    EXPECT_THROW((void)cost_family_of(bad), std::invalid_argument) << bad;
  }
  EXPECT_EQ(cost_family_name(CostFamily::kRoce), "roce");
}

TEST(TcoJson, SerialisesInputsBomAndResult) {
  const CostResult r = compute_tco(small_bom(), round_inputs());
  const nlohmann::ordered_json j = cost_result_json(r);
  ASSERT_EQ(j["lines"].size(), 8u);
  EXPECT_EQ(j["lines"][0]["item"], "NICs");
  EXPECT_EQ(j["lines"][0]["usd"], 8000);
  EXPECT_EQ(j["lines"][0]["inputs"][1], "nic");
  EXPECT_EQ(j["total"], 42371);
  const nlohmann::ordered_json in = cost_inputs_json(round_inputs());
  EXPECT_EQ(in["family"], "roce");
  EXPECT_EQ(in["years"], 2);
  EXPECT_EQ(in["usd_per_kwh"], 0.125);
  EXPECT_EQ(bill_of_materials_json(small_bom())["switch_ports_used"], 16);
}

// Optics priced by class: a link whose class the topology names costs that
// class's price and leaves the host/fabric link lines; every class the
// scenario accepts has a price with a source and a range.
TEST(TcoCables, EveryClassHasAPriceAndLinksOfAClassArePricedByIt) {
  for (const CableClassInfo& c : cable_classes()) {
    SCOPED_TRACE(c.name);
    const CostInputInfo i = cable_link_info(c.name);
    EXPECT_EQ(i.key, "link_" + c.name);
    EXPECT_FALSE(i.source.empty());
    EXPECT_LE(i.low, i.value);
    EXPECT_LE(i.value, i.high);
    if (i.source.rfind("assumption:", 0) == 0) {
      EXPECT_LT(i.low, i.high);
    } else {
      EXPECT_NE(i.source.find("http"), std::string::npos) << i.source;
    }
  }
  // Reach costs money: each longer class at least as dear as a shorter one
  // of the same technology.
  EXPECT_LT(cable_link_info("dac").value, cable_link_info("aoc").value);
  EXPECT_LE(cable_link_info("dr4").value, cable_link_info("fr4").value);
  EXPECT_LT(cable_link_info("fr4").value, cable_link_info("lr8").value);
  EXPECT_LT(cable_link_info("lr8").value, cable_link_info("zr").value);
  EXPECT_LT(cable_link_info("zr").value, cable_link_info("zr-plus").value);

  BillOfMaterials bom = small_bom();
  bom.host_links = 0;                         // the 8 host links are DACs
  bom.fabric_links = 1;                       // one of the 4 uplinks has no class
  bom.cable_links = {{"dac", 8}, {"zr", 3}};  // 3 uplinks cross to another site
  CostInputs in = round_inputs();
  in.cable_link_usd = {{"dac", 100}, {"zr", 8000}};
  const CostResult r = compute_tco(bom, in);
  EXPECT_EQ(line(r, "Host links").usd, 0);
  EXPECT_EQ(line(r, "Fabric links").usd, 500);
  EXPECT_EQ(line(r, "Links (dac)").usd, 800);
  EXPECT_EQ(line(r, "Links (zr)").usd, 24000);
  EXPECT_EQ(line(r, "Links (zr)").formula, "3 zr links x 8000 USD");
  EXPECT_EQ(line(r, "Links (zr)").inputs, (std::vector<std::string>{"bom.cable_links.zr", "link_zr"}));
  EXPECT_EQ(line(r, "Links (zr)").category, "capex");
  const CostResult plain = compute_tco(small_bom(), round_inputs());
  // 8 x 300 + 4 x 500 before; 8 x 100 + 1 x 500 + 3 x 8000 after.
  EXPECT_EQ(r.capex - plain.capex, (800 + 500 + 24000) - (2400 + 2000));
  EXPECT_EQ(r.opex, plain.opex);  // power and staff follow ports and switches, not optics

  EXPECT_EQ(bill_of_materials_json(bom)["cable_links"]["zr"], 3);
  EXPECT_FALSE(bill_of_materials_json(small_bom()).contains("cable_links"));
}

TEST(TcoCables, APriceIsReadOnlyForAClassTheClusterNames) {
  const CfgNode root = CfgNode::load_string(
      "cost:\n"
      "  roce: {link_zr: 9000}\n"
      "  infiniband: {link_dac: 150}\n",
      "eval.yaml");
  const CostInputs roce = load_cost_inputs(root.child("cost"), CostFamily::kRoce, {"dac", "zr"});
  EXPECT_EQ(roce.cable_link("zr"), 9000);
  EXPECT_EQ(roce.cable_link("dac"), cable_link_info("dac").value);
  EXPECT_EQ(cost_inputs_json(roce)["link_zr"], 9000);
  EXPECT_EQ(load_cost_inputs(root.child("cost"), CostFamily::kInfiniband, {"dac", "zr"}).cable_link("dac"),
            150);
  // Without the class in the cluster the key would change nothing: refused.
  const InputError unused = testing::input_error_of(
      [&] { (void)load_cost_inputs(root.child("cost"), CostFamily::kRoce, {"dac"}); });
  EXPECT_EQ(unused.key(), "cost.roce.link_zr");
  EXPECT_EQ(unused.line(), 2);
  EXPECT_NE(unused.message().find("no zr links"), std::string::npos) << unused.message();
  EXPECT_FALSE(cost_inputs_json(default_cost_inputs(CostFamily::kRoce)).contains("link_dac"));
}

}  // namespace
}  // namespace rdmasim
