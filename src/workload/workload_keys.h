// A workload type's keys, declared once. A type writes a traits struct
//
//   struct IncastKeys {
//     static void prepare(const Scenario* s, WorkloadSpec& ws);  // optional
//     template <class V> static void visit(V& v, WorkloadSpec& ws);
//     static void after_read(const CfgNode& item, WorkloadSpec& ws);  // optional
//     static uint64_t flows(const WorkloadSpec& ws, int hosts);  // optional
//   };
//
// and keyed_type<IncastKeys>(name, check, make) is its registry entry, whose
// parse (ParamReader), echo (ParamEcho) and reference (ParamSchema) all come
// from visit(). prepare() creates ws.params and sets defaults that depend on
// the scenario (s is null when the reference lists the defaults);
// after_read() does what needs every key (e.g. loading a named file);
// flows() is how many flows setup will make, when the spec alone says.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "config/cfg_node.h"
#include "config/params.h"
#include "workload/workload.h"

namespace rdmasim {

// The type's params struct, for writing (the visit) or reading.
template <typename P>
P& params_of(WorkloadSpec& ws) {
  return static_cast<P&>(*ws.params);
}

template <typename K>
struct KeyedWorkload {
  static void prepare(const Scenario* s, WorkloadSpec& ws) {
    if constexpr (requires { K::prepare(s, ws); }) K::prepare(s, ws);
  }
  static void parse(const CfgNode& item, const Scenario& s, WorkloadSpec& ws) {
    prepare(&s, ws);
    ParamReader r(item);
    K::visit(r, ws);
    if constexpr (requires { K::after_read(item, ws); }) K::after_read(item, ws);
  }
  static void echo(const WorkloadSpec& ws, nlohmann::ordered_json& out) {
    ParamEcho e(out);
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-const-cast): the echo visitor only reads
    K::visit(e, const_cast<WorkloadSpec&>(ws));
  }
  static WorkloadSpec default_spec() {
    WorkloadSpec ws;
    ws.type = K::kName;
    prepare(nullptr, ws);
    return ws;
  }
  static std::vector<KeyInfo> keys() {
    WorkloadSpec ws = default_spec();
    ParamSchema schema;
    K::visit(schema, ws);
    return schema.keys;
  }
  static uint64_t qps_before_setup(const WorkloadSpec& ws, int hosts) {
    if constexpr (requires { K::flows(ws, hosts); })
      return K::flows(ws, hosts) * static_cast<uint64_t>(ws.qps);
    else
      return 0;
  }
  static nlohmann::ordered_json defaults() {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    echo(default_spec(), j);
    return j;
  }
};

template <typename K>
WorkloadType keyed_type(void (*check)(const CfgNode&, const WorkloadSpec&, const Topology&, const Scenario&),
                        std::unique_ptr<Workload> (*make)(const WorkloadSpec&)) {
  using W = KeyedWorkload<K>;
  return WorkloadType{K::kName, W::parse, check, W::echo, W::keys, W::defaults, make, W::qps_before_setup};
}

}  // namespace rdmasim
