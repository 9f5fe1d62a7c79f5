// `rdmasim schema`: the reference of every scenario key, generated from the
// declarations the loader reads with (config/params.h), so it cannot drift.
// docs/SCENARIO.md is its output; a test compares the two.
#include <fmt/format.h>

#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "config/join.h"
#include "config/misconfig.h"
#include "config/params.h"
#include "config/scenario.h"
#include "fabric/parts.h"
#include "fabric/profiles.h"
#include "fabric/schema.h"
#include "workload/workload.h"

namespace rdmasim::cli {
namespace {

// Markdown table cells hold no pipes or line breaks.
std::string cell(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string code(const std::string& s) { return s.empty() ? "" : "`" + cell(s) + "`"; }

// The value of dotted `key` in an echo, as a user writes it ("" if absent).
std::string echoed(const nlohmann::ordered_json& echo, const std::string& key) {
  for (const auto& [k, v] : flatten_params(echo, ""))
    if (k == key) return v;
  return "";
}

void table_head(std::string& out) { out += "| key | value | default | what it does |\n|---|---|---|---|\n"; }

// One row per key; `defaults` is the echo of a spec that gives only the required keys.
void key_rows(std::string& out, const std::string& prefix, const std::vector<KeyInfo>& keys,
              const nlohmann::ordered_json& defaults) {
  for (const KeyInfo& k : keys) {
    if (!k.refused.empty()) continue;  // listed under the key's own conditions below
    const std::string def = k.required        ? "**required**"
                            : k.form == "map" ? ""
                                              : code(echoed(defaults, k.key));
    out += fmt::format("| {} | {} | {} | {} |\n", code(prefix + k.key), cell(k.form), def, cell(k.doc));
  }
  bool any = false;
  for (const KeyInfo& k : keys)
    if (!k.refused.empty()) {
      if (!any) out += "\nRefused here (exit 2):\n";
      any = true;
      out += fmt::format("- {}: {}\n", code(prefix + k.key), cell(k.refused));
    }
}

// A fabric or switch key across the profiles: its declaration and each profile's value.
struct FabricKey {
  KeyInfo info;
  std::map<std::string, std::vector<std::string>> profiles_by_value;  // value -> profiles
  std::set<std::string> seen;
  std::vector<std::pair<std::string, std::string>> refused;  // profile, why
};

void collect(std::vector<FabricKey>& keys, const std::string& prefix, const std::vector<KeyInfo>& schema,
             const nlohmann::ordered_json& echo, const std::string& profile) {
  for (const KeyInfo& k : schema) {
    const std::string name = prefix + k.key;
    FabricKey* fk = nullptr;
    for (FabricKey& x : keys)
      if (x.info.key == name) fk = &x;
    if (fk == nullptr) {
      keys.push_back(FabricKey{k, {}, {}, {}});
      fk = &keys.back();
      fk->info.key = name;
    }
    if (!k.refused.empty()) {
      bool listed = false;
      for (const auto& [p, why] : fk->refused) listed = listed || p == profile;
      if (!listed) fk->refused.emplace_back(profile, k.refused);
      continue;
    }
    if (fk->info.form.empty()) fk->info = KeyInfo{name, k.form, k.doc, k.required, {}};
    if (k.form == "map" || fk->seen.count(profile)) continue;
    fk->seen.insert(profile);
    fk->profiles_by_value[echoed(echo, k.key)].push_back(profile);
  }
}

void fabric_section(std::string& out) {
  const std::vector<std::string> profiles = profile_names();
  std::vector<FabricKey> fabric, sw;
  for (const std::string& name : profiles) {
    const Profile p = find_profile(name);
    // The profile as shipped first (its values win), then each congestion
    // control, path selector and IRN swapped in: their keys exist only then.
    std::vector<FabricConfig> variants{p.config};
    for (const std::string& cc : congestion_control_names())
      if (cc != p.config.cc && (cc != "ibcc" || p.config.ib.enabled)) {
        variants.push_back(p.config);
        variants.back().cc = cc;
      }
    for (const std::string& sel : path_selector_names())
      if (sel != p.config.paths.name) {
        variants.push_back(p.config);
        variants.back().paths.name = sel;
      }
    variants.push_back(p.config);
    variants.back().rc.recovery = LossRecovery::kIrn;
    // The watchdog's own keys exist only once it is on.
    if (p.config.sw.mmu.lossless_mask != 0) {
      variants.push_back(p.config);
      variants.back().sw.pfc_watchdog.enabled = true;
    }
    for (const FabricConfig& v : variants) {
      collect(fabric, "fabric.", fabric_param_schema(v), fabric_params_json(v), name);
      collect(sw, "topology.switch.", switch_param_schema(v.sw), switch_params_json(v.sw), name);
      collect(sw, "topology.router.", router_param_schema(v), router_params_json(v), name);
    }
  }
  auto rows = [&](const std::vector<FabricKey>& keys, bool with_profile) {
    table_head(out);
    if (with_profile) {
      std::string names;
      for (const std::string& n : profiles) names += (names.empty() ? "" : " | ") + n;
      out += fmt::format(
          "| `fabric.profile` | {} | `ethernet-lossy` | the built-in profile every other key "
          "defaults to |\n",
          cell(names));
    }
    for (const FabricKey& k : keys) {
      if (k.info.form.empty() || k.info.form == "map") continue;
      std::string def;
      if (k.profiles_by_value.size() == 1 && k.seen.size() == profiles.size()) {
        def = code(k.profiles_by_value.begin()->first) + " (every profile)";
      } else {
        for (const auto& [value, ps] : k.profiles_by_value)
          // Keys echoed only when set (added after results were first recorded) have no value to show.
          def += (def.empty() ? "" : "<br>") + (value.empty() ? std::string("not set") : code(value)) + ": " +
                 join_names(ps);
      }
      // Refused under a profile only if no variant of it accepts the key.
      std::vector<std::string> refused;
      for (const auto& [p, why] : k.refused)
        if (!k.seen.count(p)) refused.push_back(p);
      if (!refused.empty()) def += "<br>refused on: " + join_names(refused);
      out +=
          fmt::format("| {} | {} | {} | {} |\n", code(k.info.key), cell(k.info.form), def, cell(k.info.doc));
    }
  };
  out += "## fabric\n\n";
  out +=
      "`fabric.profile` picks the built-in profile whose values every other key defaults to (`rdmasim "
      "profiles` lists them with their sources):\n\n";
  for (const std::string& name : profiles)
    out += fmt::format("- `{}`: {}\n", name, find_profile(name).summary);
  out +=
      "\nA key exists only where its part runs (e.g. `fabric.dcqcn.*` with `cc: dcqcn`, `fabric.pfc.*` with "
      "PFC on); elsewhere it is refused with the reason. Defaults are per profile, with the part selected "
      "where the profile ships another.\n\n";
  rows(fabric, true);
  out += "\n## topology.switch\n\nThe switch hardware; the profile supplies the defaults.\n\n";
  rows(sw, false);
}

}  // namespace

std::string key_reference() {
  std::string out;
  out += "# Scenario key reference\n\n";
  out +=
      "Generated by `rdmasim schema` from the declarations the scenario loader reads with: do not edit "
      "(`make test` fails when this file and the loader disagree). Values carry units (`10us`, `100Gbps`, "
      "`64KB`; rates also in bytes per second, `900GB/s`); a key a scenario gives that the chosen parts do "
      "not use is refused with exit 2. No value may "
      "exceed 100000s, 1PiB or 1000Tbps: time is counted in 64-bit picoseconds, and these bounds keep every "
      "sum of inputs from wrapping. Input files must be regular files (at most 16 MiB for a scenario or a "
      "CDF, 256 MiB for an HPCC topology or flow file). `rdmasim run --set key=value` sets any key before "
      "the scenario is read, with the same checks: a list item by its index (`workload.0.qps=8` or "
      "`workload[0].qps=8`), a list as a YAML list (`fabric.pfc.classes=[3,4]`), a map one key at a "
      "time.\n\n";

  out += "## The run\n\n";
  table_head(out);
  key_rows(out, "", run_keys(), run_defaults());

  out +=
      "\n## topology\n\n`topology.type` picks the wiring; each type has its own keys. The link defaults are "
      "the fabric profile's (here `ethernet-lossy`'s).\n\n";
  const LinkSpec link = find_profile("ethernet-lossy").config.link;
  for (const std::string& type : topology_type_names()) {
    out += "### topology.type: " + type + "\n\n";
    table_head(out);
    key_rows(out, "topology.", topology_keys(type), topology_defaults(type, link));
    out += "\n";
  }

  fabric_section(out);

  out += "\n## workload\n\nA list; each item's `type` picks its keys.\n\n";
  for (const std::string_view name : workload_type_names()) {
    const WorkloadType* t = find_workload_type(name);
    out += fmt::format("### workload[].type: {}\n\n", name);
    table_head(out);
    key_rows(out, "", t->keys(), t->defaults());
    out += "\n";
  }

  out += "## faults\n\nA list of link-state changes.\n\n";
  table_head(out);
  key_rows(out, "faults[].", fault_keys(), nlohmann::ordered_json::object());

  out +=
      "\n## links\n\nA list of per-link settings, applied in order (a later entry overrides an earlier one "
      "where they meet, and both override a topology file's error rates): random loss or bit errors on the "
      "wire. A lost frame takes its time on the wire and is discarded by the receiving port (results.json "
      "`network.corruption_drops`, apart from buffer drops). `loss` is refused on PFC and InfiniBand credit "
      "links (it would lose PAUSE frames and credit updates); `ber` applies everywhere and spares those "
      "small control frames.\n\n";
  table_head(out);
  key_rows(out, "links[].", link_setting_keys(), link_setting_defaults());

  out +=
      "\n## misconfig\n\nA list of injected misconfigurations, each on one switch, NIC or switch port (or "
      "every switch or NIC): `set` holds fabric keys the device runs otherwise, read by the fabric's own "
      "declarations on top of what earlier entries gave it. A run with one is labelled MISCONFIGURED, and "
      "its lossless-class drops are its finding (results.json `misconfig`) instead of a broken invariant. "
      "A key the profile has no use for, or one that changes nothing, is refused.\n\n";
  table_head(out);
  key_rows(out, "misconfig[].", misconfig_keys(), nlohmann::ordered_json::object());
  return out;
}

int schema_command() {
  const std::string text = key_reference();
  std::fwrite(text.data(), 1, text.size(), stdout);
  return kExitOk;
}

}  // namespace rdmasim::cli
