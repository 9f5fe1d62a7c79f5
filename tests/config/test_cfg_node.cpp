#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "config/cfg_node.h"
#include "support/input_error_of.h"

namespace rdmasim {
namespace {

// Line numbers below refer to this text.
constexpr const char* kScenario = R"(topology:
  kind: fat_tree
  k: 65
  link:
    rate: 400
    delay: 1us
    rat: 100Gbps
workload:
  - size: 1MiB
    count: 3
  - size: 2MiB
    sise: 1KiB
sim:
  duration: 10ms
  cc: dcqcm
  ecn: 30%
  verbose: yes
  seed: abc
  empty:
  name: "my run"
)";

CfgNode scenario() { return CfgNode::load_string(kScenario, "scen.yaml"); }

TEST(CfgNode, TypedGettersReadValues) {
  const CfgNode root = scenario();
  const CfgNode topo = root.child("topology");
  EXPECT_EQ(topo.str("kind"), "fat_tree");
  EXPECT_EQ(topo.child("link").time("delay").ps(), 1'000'000);
  const std::vector<CfgNode> items = root.list("workload");
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].bytes("size").count(), 1'048'576);
  EXPECT_EQ(items[0].integer("count", 1, 100), 3);
  EXPECT_EQ(items[1].path(), "workload[1]");
  EXPECT_EQ(items[1].line(), 11);
  const CfgNode sim = root.child("sim");
  EXPECT_EQ(sim.time("duration").ps(), 10'000'000'000);
  EXPECT_EQ(sim.fraction("ecn"), 0.3);
  EXPECT_EQ(sim.str("name"), "my run");
  EXPECT_EQ(sim.path(), "sim");
  EXPECT_EQ(sim.line(), 14);
  EXPECT_EQ(sim.file(), "scen.yaml");
}

TEST(CfgNode, DefaultsApplyOnlyWhenAbsent) {
  const CfgNode link = scenario().child("topology").child("link");
  EXPECT_EQ(link.rate("rate2", Rate::from_gbps(100)).bps(), 100'000'000'000);
  EXPECT_EQ(link.time("jitter", Time::from_ns(5)).ps(), 5000);
  EXPECT_EQ(link.bytes("mtu", Bytes(4096)).count(), 4096);
  EXPECT_EQ(link.integer("lanes", 4, 1, 8), 4);
  EXPECT_EQ(link.real("loss", 0.25, 0.0, 1.0), 0.25);
  EXPECT_EQ(link.boolean("pfc", true), true);
  EXPECT_EQ(link.str("label", "x"), "x");
  EXPECT_EQ(link.choice("mode", {"a", "b"}, "b"), "b");
  EXPECT_EQ(link.fraction("util", 0.5), 0.5);
  EXPECT_FALSE(link.has("lanes"));
  EXPECT_TRUE(link.has("delay"));
  EXPECT_FALSE(link.opt_child("extra").has_value());
  EXPECT_TRUE(link.opt_list("extra_list").empty());
  // A present but malformed value is never replaced by the default.
  const InputError e = testing::input_error_of([&] { (void)link.rate("rate", Rate::from_gbps(1)); });
  EXPECT_EQ(e.line(), 5);
}

TEST(CfgNode, RateWithoutUnitNamesFileLineColumnAndKey) {
  const CfgNode link = scenario().child("topology").child("link");
  const InputError e = testing::input_error_of([&] { (void)link.rate("rate"); });
  EXPECT_EQ(e.file(), "scen.yaml");
  EXPECT_EQ(e.line(), 5);
  EXPECT_EQ(e.column(), 11);
  EXPECT_EQ(e.key(), "topology.link.rate");
  EXPECT_STREQ(
      e.what(),
      "scen.yaml:5:11: 'topology.link.rate': expected a rate with a unit, e.g. 400Gbps (got \"400\")");
}

TEST(CfgNode, IntegerOutOfRange) {
  const CfgNode topo = scenario().child("topology");
  const InputError e = testing::input_error_of([&] { (void)topo.integer("k", 2, 64); });
  EXPECT_STREQ(e.what(), "scen.yaml:3:6: 'topology.k': expected an integer in [2, 64] (got 65)");
}

TEST(CfgNode, IntegerMalformedAndOverflowing) {
  const CfgNode sim = scenario().child("sim");
  EXPECT_STREQ(testing::input_error_of([&] { (void)sim.integer("seed", 0, 100); }).what(),
               "scen.yaml:18:9: 'sim.seed': expected an integer in [0, 100] (got \"abc\")");
  const CfgNode big = CfgNode::load_string("n: 99999999999999999999\n", "b.yaml");
  EXPECT_STREQ(testing::input_error_of([&] { (void)big.integer("n", 0, INT64_MAX); }).what(),
               "b.yaml:1:4: 'n': expected an integer >= 0 (got 99999999999999999999)");
  const CfgNode frac = CfgNode::load_string("n: 1.5\n", "f.yaml");
  EXPECT_EQ(testing::input_error_of([&] { (void)frac.integer("n", INT64_MIN, INT64_MAX); }).message(),
            "expected an integer (got \"1.5\")");
}

TEST(CfgNode, RealBooleanChoiceFraction) {
  const CfgNode root = CfgNode::load_string("x: 0.5\ny: 2\nb: True\nf: 150%\n", "r.yaml");
  EXPECT_EQ(root.real("x", 0.0, 1.0), 0.5);
  EXPECT_EQ(testing::input_error_of([&] { (void)root.real("y", 0.0, 1.0); }).message(),
            "expected a number in [0, 1] (got 2)");
  EXPECT_TRUE(root.boolean("b"));
  const InputError f = testing::input_error_of([&] { (void)root.fraction("f"); });
  EXPECT_EQ(f.line(), 4);
  EXPECT_EQ(f.message(), "expected a fraction in [0, 1] or a percentage, e.g. 0.3 or 30% (got \"150%\")");

  const CfgNode sim = scenario().child("sim");
  EXPECT_STREQ(testing::input_error_of([&] { (void)sim.boolean("verbose"); }).what(),
               "scen.yaml:17:12: 'sim.verbose': expected true or false (got \"yes\")");
  EXPECT_STREQ(testing::input_error_of([&] {
                 (void)sim.choice("cc", {"dcqcn", "timely", "none"});
               }).what(),
               "scen.yaml:15:7: 'sim.cc': expected one of: dcqcn, timely, none (got \"dcqcm\"); did you mean "
               "'dcqcn'?");
}

TEST(CfgNode, MissingRequiredKeyPointsAtEnclosingMap) {
  const CfgNode link = scenario().child("topology").child("link");
  const InputError e = testing::input_error_of([&] { (void)link.time("propagation"); });
  EXPECT_EQ(e.line(), 5);
  EXPECT_EQ(e.column(), 5);
  EXPECT_EQ(e.key(), "topology.link.propagation");
  EXPECT_EQ(e.message(), "missing required key (expected a time with a unit, e.g. 1.5us)");
  EXPECT_EQ(testing::input_error_of([&] { (void)scenario().child("stats"); }).message(),
            "missing required key (expected a map)");
  EXPECT_EQ(testing::input_error_of([&] { (void)scenario().list("flows"); }).key(), "flows");
}

TEST(CfgNode, WrongYamlTypes) {
  const CfgNode root = scenario();
  const InputError not_map = testing::input_error_of([&] { (void)root.child("workload"); });
  EXPECT_EQ(not_map.line(), 9);
  EXPECT_EQ(not_map.message(), "expected a map (got a list)");
  // A lone map must not be taken for a one-item list.
  const InputError not_list = testing::input_error_of([&] { (void)root.list("topology"); });
  EXPECT_EQ(not_list.key(), "topology");
  EXPECT_EQ(not_list.line(), 2);
  EXPECT_EQ(not_list.message(), "expected a list (got a map)");
  EXPECT_EQ(testing::input_error_of([&] { (void)root.child("topology").time("link"); }).message(),
            "expected a time with a unit, e.g. 1.5us (got a map)");
  EXPECT_EQ(testing::input_error_of([&] { (void)root.child("topology").child("kind"); }).message(),
            "expected a map (got \"fat_tree\")");
  EXPECT_EQ(testing::input_error_of([&] { (void)root.str("workload"); }).message(),
            "expected a string (got a list)");
  EXPECT_EQ(testing::input_error_of([&] { (void)root.scalar(); }).message(),
            "expected a single value (got a map)");
  EXPECT_EQ(testing::input_error_of([&] { (void)root.elements(); }).message(), "expected a list (got a map)");

  const CfgNode scalars = CfgNode::load_string("xs: [1, 2]\n", "s.yaml");
  const std::vector<CfgNode> xs = scalars.list("xs");
  ASSERT_EQ(xs.size(), 2u);
  EXPECT_TRUE(xs[1].is_scalar());
  EXPECT_EQ(xs[1].scalar(), "2");
  const InputError item = testing::input_error_of([&] { (void)xs[0].integer("n", 0, 9); });
  EXPECT_EQ(item.key(), "xs[0]");
  EXPECT_EQ(item.message(), "expected a map containing 'n' (got \"1\")");
}

TEST(CfgNode, EmptyValueIsAnErrorAtItsKey) {
  const CfgNode sim = scenario().child("sim");
  const InputError e = testing::input_error_of([&] { (void)sim.str("empty", "default"); });
  EXPECT_EQ(e.line(), 19);
  EXPECT_EQ(e.column(), 3);
  EXPECT_EQ(e.message(), "expected a string (got an empty value)");
}

TEST(CfgNode, UnknownKeyWithSuggestion) {
  const CfgNode link = scenario().child("topology").child("link");
  (void)link.has("rate");
  (void)link.time("delay");
  const InputError e = testing::input_error_of([&] { link.finish(); });
  EXPECT_STREQ(e.what(),
               "scen.yaml:7:5: 'topology.link.rat': unknown key; did you mean 'rate'? (accepted keys here: "
               "delay, rate)");
}

TEST(CfgNode, UnknownKeyCountsQueriedButAbsentKeysAsAccepted) {
  const CfgNode item = scenario().list("workload")[1];
  (void)item.bytes("size");
  (void)item.has("size_dist");
  const InputError e = testing::input_error_of([&] { item.finish(); });
  EXPECT_EQ(e.key(), "workload[1].sise");
  EXPECT_EQ(e.line(), 12);
  EXPECT_EQ(e.message(), "unknown key; did you mean 'size'? (accepted keys here: size, size_dist)");
}

TEST(CfgNode, UnknownKeyNamedByASynonymOnlyWhereItsKeyIsAccepted) {
  const CfgNode link = CfgNode::load_string("bandwidth: 1Gbps\nspeed: 1Gbps\n", "s.yaml");
  (void)link.has("rate");
  EXPECT_EQ(testing::input_error_of([&] { link.finish(); }).message(),
            "unknown key; did you mean 'rate'? (accepted keys here: rate)");
  // A short synonym must match whole: "seed" is not "speed".
  const CfgNode seed = CfgNode::load_string("seed: 1\n", "s.yaml");
  (void)seed.has("rate");
  EXPECT_EQ(testing::input_error_of([&] { seed.finish(); }).message(),
            "unknown key (accepted keys here: rate)");
  // No "rate" here: the synonym names nothing.
  const CfgNode other = CfgNode::load_string("bandwidth: 1Gbps\nsize: 1B\n", "s.yaml");
  (void)other.bytes("size");
  EXPECT_EQ(testing::input_error_of([&] { other.finish(); }).message(),
            "unknown key (accepted keys here: size)");
  // A key spelled like the word wins over the synonym's key.
  const CfgNode both = CfgNode::load_string("latncy: 1us\n", "s.yaml");
  (void)both.has("latency");
  (void)both.has("delay");
  EXPECT_EQ(testing::input_error_of([&] { both.finish(); }).message(),
            "unknown key; did you mean 'latency'? (accepted keys here: delay, latency)");
}

TEST(CfgNode, UnknownKeyWithoutCloseMatch) {
  const CfgNode root = CfgNode::load_string("colour: red\nsize: 1B\n", "u.yaml");
  (void)root.bytes("size");
  EXPECT_EQ(testing::input_error_of([&] { root.finish(); }).message(),
            "unknown key (accepted keys here: size)");
  const CfgNode none = CfgNode::load_string("a: 1\n", "u.yaml");
  EXPECT_EQ(testing::input_error_of([&] { none.finish(); }).message(),
            "unknown key (no keys are accepted here)");
}

TEST(CfgNode, ReadRecordIsSharedBetweenCopies) {
  const CfgNode root = scenario();
  (void)root.child("topology").str("kind");
  const CfgNode topo = root.child("topology");
  (void)topo.integer("k", 0, 100);
  (void)topo.opt_child("link");
  topo.finish();              // kind was read through another CfgNode for the same map.
  const CfgNode copy = topo;  // NOLINT(performance-unnecessary-copy-initialization): the copy is the test
  copy.finish();
  (void)root.list("workload");
  (void)root.child("sim");
  root.finish();
}

TEST(CfgNode, KeysEnumeratesInOrderAndAcceptsThem) {
  const CfgNode hosts = CfgNode::load_string("hosts:\n  h2: 1\n  h1: 2\n", "h.yaml").child("hosts");
  EXPECT_EQ(hosts.keys(), (std::vector<std::string>{"h2", "h1"}));
  hosts.finish();
}

TEST(CfgNode, SemanticErrorsCarryLocation) {
  const CfgNode topo = scenario().child("topology");
  const InputError at_key = topo.error("k", "k must be even");
  EXPECT_STREQ(at_key.what(), "scen.yaml:3:6: 'topology.k': k must be even");
  const InputError at_node = topo.error("", "bad topology");
  EXPECT_STREQ(at_node.what(), "scen.yaml:2:3: 'topology': bad topology");
  const InputError absent = topo.error("spines", "needs spines");
  EXPECT_EQ(absent.line(), 2);
  EXPECT_EQ(absent.key(), "topology.spines");
}

TEST(CfgNode, SyntaxErrorHasLineAndColumn) {
  const InputError e =
      testing::input_error_of([] { (void)CfgNode::load_string("a: 1\n  b: 2\nc: 3\n", "bad.yaml"); });
  EXPECT_EQ(e.file(), "bad.yaml");
  EXPECT_EQ(e.line(), 2);
  EXPECT_EQ(e.column(), 4);
  EXPECT_EQ(e.key(), "");
  EXPECT_STREQ(e.what(), "bad.yaml:2:4: invalid YAML: illegal map value");
  const InputError alias =
      testing::input_error_of([] { (void)CfgNode::load_string("a: 1\nb: *nope\n", "bad.yaml"); });
  EXPECT_STREQ(alias.what(), "bad.yaml:2:4: invalid YAML: the referenced anchor is not defined");
  // yaml-cpp 0.7 alone loops forever on these.
  EXPECT_STREQ(testing::input_error_of([] { (void)CfgNode::load_string(",a: 1\n", "bad.yaml"); }).what(),
               "bad.yaml:1:1: invalid YAML: unexpected ','");
  EXPECT_STREQ(testing::input_error_of([] { (void)CfgNode::load_string("- 1\n,\n", "bad.yaml"); }).what(),
               "bad.yaml:2:1: invalid YAML: unexpected ','");
}

TEST(CfgNode, DuplicateKeysAreRejected) {
  const InputError top =
      testing::input_error_of([] { (void)CfgNode::load_string("a: 1\nb: 2\na: 3\n", "d.yaml"); });
  EXPECT_STREQ(top.what(), "d.yaml:3:1: 'a': duplicate key (first defined on line 1)");
  const InputError nested = testing::input_error_of(
      [] { (void)CfgNode::load_string("w:\n  - x: 1\n    y: 2\n    x: 3\n", "d.yaml"); });
  EXPECT_STREQ(nested.what(), "d.yaml:4:5: 'w[0].x': duplicate key (first defined on line 2)");
}

TEST(CfgNode, DocumentShapeErrors) {
  EXPECT_EQ(testing::input_error_of([] { (void)CfgNode::load_string("", "e.yaml"); }).message(),
            "the document is empty; expected a map of settings");
  EXPECT_EQ(testing::input_error_of([] { (void)CfgNode::load_string("- 1\n", "e.yaml"); }).message(),
            "expected a map of settings at the top level (got a list)");
  const InputError two =
      testing::input_error_of([] { (void)CfgNode::load_string("a: 1\n---\nb: 2\n", "e.yaml"); });
  EXPECT_EQ(two.message(), "expected a single YAML document, but another one starts here");
  EXPECT_EQ(two.line(), 2);
  EXPECT_EQ(testing::input_error_of([] { (void)CfgNode::load_string("? [a]\n: 1\n", "e.yaml"); }).message(),
            "map keys must be plain strings");
  EXPECT_EQ(testing::input_error_of([] { (void)CfgNode::load_string("x: &a [*a]\n", "e.yaml"); }).message(),
            "nesting is too deep (or an alias refers to itself)");
}

TEST(CfgNode, LoadFile) {
  const std::string path = ::testing::TempDir() + "cfg_node_test.yaml";
  {
    std::ofstream out(path);
    out << "sim:\n  duration: 2s\n";
  }
  const CfgNode root = CfgNode::load_file(path);
  EXPECT_EQ(root.child("sim").time("duration").ps(), 2'000'000'000'000);
  EXPECT_EQ(root.file(), path);
  std::remove(path.c_str());

  const InputError missing = testing::input_error_of([&] { (void)CfgNode::load_file(path); });
  EXPECT_EQ(missing.file(), path);
  EXPECT_EQ(missing.message(), "cannot open scenario file: No such file or directory");
  EXPECT_EQ(testing::input_error_of([] { (void)CfgNode::load_file(::testing::TempDir()); }).message(),
            "is a directory, not a scenario file");
}

TEST(ApplyOverride, ReplacesExistingScalar) {
  CfgNode root = scenario();
  apply_override(root, "topology.link.rate", "100Gbps");
  EXPECT_EQ(root.child("topology").child("link").rate("rate").bps(), 100'000'000'000);
  apply_override(root, "sim.name", "\"a: b\"");
  EXPECT_EQ(root.child("sim").str("name"), "a: b");
}

TEST(ApplyOverride, CreatesMissingMaps) {
  CfgNode root = scenario();
  apply_override(root, "stats.trace.interval", "10us");
  EXPECT_EQ(root.child("stats").child("trace").time("interval").ps(), 10'000'000);
  apply_override(root, "sim.empty.x", "1");
  EXPECT_EQ(root.child("sim").child("empty").integer("x", 0, 9), 1);
}

TEST(ApplyOverride, ListIndices) {
  CfgNode root = scenario();
  apply_override(root, "workload[1].size", "4KiB");
  apply_override(root, "workload[2].size", "1KiB");  // Index == size appends.
  const std::vector<CfgNode> items = root.list("workload");
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[1].bytes("size").count(), 4096);
  EXPECT_EQ(items[2].bytes("size").count(), 1024);
  apply_override(root, "matrix[0][0]", "7");
  EXPECT_EQ(root.list("matrix")[0].elements()[0].scalar(), "7");
}

// A number after a dot indexes a list, as [i] does; on a map it stays a key.
TEST(ApplyOverride, DottedListIndices) {
  CfgNode root = scenario();
  apply_override(root, "workload.1.size", "4KiB");
  apply_override(root, "workload.2.size", "1KiB");  // Index == size appends.
  std::vector<CfgNode> items = root.list("workload");
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[1].bytes("size").count(), 4096);
  EXPECT_EQ(items[2].bytes("size").count(), 1024);
  apply_override(root, "matrix.0.0", "7");  // a missing key becomes a map, not a list
  EXPECT_EQ(root.child("matrix").child("0").integer("0", 0, 9), 7);
}

// A YAML list of single values is stored as a list, replacing what was there.
TEST(ApplyOverride, ListValues) {
  CfgNode root = scenario();
  apply_override(root, "fabric.classes", "[3,4]");
  std::vector<CfgNode> classes = root.child("fabric").list("classes");
  ASSERT_EQ(classes.size(), 2u);
  EXPECT_EQ(classes[0].scalar(), "3");
  EXPECT_EQ(classes[1].scalar(), "4");
  apply_override(root, "workload.0.size", "[1KiB, \"a, b\"]");
  const std::vector<CfgNode> sizes = root.list("workload")[0].list("size");
  ASSERT_EQ(sizes.size(), 2u);
  EXPECT_EQ(sizes[1].scalar(), "a, b");
  apply_override(root, "fabric.classes", "[]");
  EXPECT_TRUE(root.child("fabric").list("classes").empty());
  // Errors about an item blame the override, at the item.
  apply_override(root, "fabric.classes", "[3, x]");
  const InputError e =
      testing::input_error_of([&] { (void)root.child("fabric").list("classes")[1].elements(); });
  EXPECT_STREQ(e.what(), "<--set>: 'fabric.classes[1]': expected a list (got \"x\")");
}

TEST(ApplyOverride, LaterErrorsBlameTheOverride) {
  CfgNode root = scenario();
  apply_override(root, "topology.link.rate", "fast");
  const InputError e =
      testing::input_error_of([&] { (void)root.child("topology").child("link").rate("rate"); });
  EXPECT_STREQ(e.what(),
               "<--set>: 'topology.link.rate': expected a rate with a unit, e.g. 400Gbps (got \"fast\")");
}

TEST(ApplyOverride, Errors) {
  CfgNode root = scenario();
  const auto set_error = [&](std::string_view key, std::string_view value) {
    return testing::input_error_of([&] { apply_override(root, key, value); });
  };
  const std::string kMalformed = "malformed key: expected names separated by '.', e.g. workload[0].size";
  for (const char* bad : {"", "a..b", ".a", "a.", "a[x]", "a[1", "a[]", "a]", "a[1]b"}) {
    const InputError e = set_error(bad, "1");
    EXPECT_EQ(e.file(), "<--set>") << bad;
    EXPECT_EQ(e.line(), 0) << bad;
    EXPECT_EQ(e.message(), kMalformed) << bad;
  }
  EXPECT_STREQ(set_error("workload[5].size", "1B").what(),
               "<--set>: 'workload[5].size': index 5 is out of range ('workload' has 2 items)");
  EXPECT_STREQ(set_error("topology.kind.x", "1").what(),
               "<--set>: 'topology.kind.x': 'topology.kind' is \"fat_tree\", not a map");
  EXPECT_STREQ(set_error("topology[0]", "1").what(),
               "<--set>: 'topology[0]': 'topology' is a map, not a list");
  EXPECT_STREQ(set_error("workload.5.size", "1B").what(),
               "<--set>: 'workload.5.size': index 5 is out of range ('workload' has 2 items)");
  EXPECT_STREQ(set_error("workload.x.size", "1B").what(),
               "<--set>: 'workload.x.size': 'workload' is a list, not a map: index it with a number, e.g. "
               "workload.0 or workload[0]");
  EXPECT_STREQ(set_error("workload.0.size.x", "1B").what(),
               "<--set>: 'workload.0.size.x': 'workload[0].size' is \"1MiB\", not a map");
  const std::string kExpected = "expected a single value or a list of single values after '='";
  EXPECT_EQ(set_error("a", "{b: 1}").message(), kExpected + " (got a map); set nested keys one at a time");
  EXPECT_EQ(set_error("a", "").message(), kExpected + " (got an empty value); set nested keys one at a time");
  EXPECT_EQ(set_error("a", "[1, [2]]").message(), kExpected + ": item 1 is a list, not a single value");
  EXPECT_EQ(set_error("a", "[{b: 1}]").message(), kExpected + ": item 0 is a map, not a single value");
  EXPECT_EQ(set_error("a", "[1, ~]").message(), kExpected + ": item 1 is an empty value, not a single value");
  EXPECT_EQ(set_error("a", "[1,").file(), "<--set>");
}

}  // namespace
}  // namespace rdmasim
