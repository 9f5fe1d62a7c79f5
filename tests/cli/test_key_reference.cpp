// The key reference (docs/SCENARIO.md, `rdmasim schema`) is generated from the
// declarations the loader reads with; these tests keep the shipped file equal
// to it and every key explained.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "cli/commands.h"
#include "config/scenario.h"
#include "fabric/parts.h"
#include "fabric/profiles.h"
#include "fabric/schema.h"
#include "workload/workload.h"

namespace rdmasim {
namespace {

TEST(KeyReference, ShippedFileMatchesTheSchema) {
  std::ifstream in(find_shipped("docs/SCENARIO.md"));
  ASSERT_TRUE(in) << "docs/SCENARIO.md is missing: run `rdmasim schema > docs/SCENARIO.md`";
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_TRUE(ss.str() == cli::key_reference())
      << "docs/SCENARIO.md is stale: regenerate it with `build/rdmasim schema > docs/SCENARIO.md`";
}

void expect_documented(const std::vector<KeyInfo>& keys, const std::string& where) {
  for (const KeyInfo& k : keys) {
    if (!k.refused.empty()) continue;
    EXPECT_FALSE(k.doc.empty()) << where << ": key '" << k.key << "' does not say what it does";
    EXPECT_FALSE(k.form.empty()) << where << ": " << k.key;
  }
}

TEST(KeyReference, EveryScenarioKeySaysWhatItDoes) {
  expect_documented(run_keys(), "run");
  for (const std::string& t : topology_type_names()) expect_documented(topology_keys(t), "topology " + t);
  for (const std::string_view name : workload_type_names())
    expect_documented(find_workload_type(name)->keys(), "workload " + std::string(name));
  expect_documented(fault_keys(), "faults");
  expect_documented(link_setting_keys(), "links");
}

TEST(KeyReference, EveryFabricKeySaysWhatItDoes) {
  for (const std::string& name : profile_names()) {
    FabricConfig cfg = find_profile(name).config;
    std::vector<FabricConfig> variants{cfg};
    for (const std::string& cc : congestion_control_names())
      if (cc != "ibcc" || cfg.ib.enabled) {
        variants.push_back(cfg);
        variants.back().cc = cc;
      }
    for (const std::string& sel : path_selector_names()) {
      variants.push_back(cfg);
      variants.back().paths.name = sel;
    }
    variants.push_back(cfg);
    variants.back().rc.recovery = LossRecovery::kIrn;
    for (const FabricConfig& v : variants) {
      expect_documented(fabric_param_schema(v), name + " fabric");
      expect_documented(switch_param_schema(v.sw), name + " topology.switch");
    }
  }
}

// Required keys are marked and a spec without them is refused: the reference
// does not claim a default for a key the loader demands.
TEST(KeyReference, RequiredKeysAreRefusedWhenMissing) {
  for (const std::string_view name : workload_type_names()) {
    for (const KeyInfo& k : find_workload_type(name)->keys()) {
      if (!k.required) continue;
      SCOPED_TRACE(std::string(name) + "." + k.key);
      // The smallest items that give every other required key.
      std::string item = "  - {type: " + std::string(name);
      for (const KeyInfo& o : find_workload_type(name)->keys())
        if (o.required && o.key != k.key) {
          std::string v = "1";
          if (o.form.rfind("size", 0) == 0) v = "1KB";
          if (o.form.rfind("time", 0) == 0) v = "1us";
          if (o.form.rfind("fraction", 0) == 0) v = "0.5";
          if (o.form.rfind("file", 0) == 0) v = "data/cdf/websearch.txt";
          if (o.key == "op") v = name == "collective" ? "all_reduce" : "write";
          if (o.key == "test") v = "write_lat";
          if (o.key == "model") v = "gpt3-xl";
          if (o.key == "dst") v = "2";
          item += ", " + o.key + ": " + v;
        }
      item += "}\n";
      try {
        (void)load_scenario_text("name: t\ntopology: {type: star, hosts: 4}\nworkload:\n" + item, "t.yaml");
        ADD_FAILURE() << "accepted without " << k.key << ": " << item;
      } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("workload[0]." + k.key + "': missing required key"),
                  std::string::npos)
            << e.what();
      }
    }
  }
}

}  // namespace
}  // namespace rdmasim
