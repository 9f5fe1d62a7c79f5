// Total cost of ownership of a cluster's network, for `rdmasim evaluate`
// (issue 13). The model is deliberately plain arithmetic over a bill of
// materials and a table of prices, so every figure in a report can be
// recomputed by hand from the inputs it lists. Each default carries where it
// comes from, a citation or "assumption: ..." with a low/high range that the
// evaluation's sensitivity analysis varies; the evaluation file can override
// any of them.
//
// Money is plain numbers in US dollars, power in watts, time in years.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/cfg_node.h"

namespace rdmasim {

// What gets bought: the switches and NICs of one technology. kIdeal is the
// simulator's hypothetical perfect network, which has no price (reported n/a).
enum class CostFamily { kInfiniband, kRoce, kIwarp, kIdeal };

// Maps a fabric profile name: ib-* -> InfiniBand; rocev2-* and ethernet-lossy
// -> RoCE (Ethernet switches, RoCE NICs); iwarp-* -> iWARP (Ethernet switches,
// iWARP RNICs such as Chelsio T6/T7, no lossless configuration); ideal ->
// kIdeal. Throws std::invalid_argument for any other name.
[[nodiscard]] CostFamily cost_family_of(std::string_view profile);
// "infiniband", "roce", "iwarp", "ideal": also the evaluation file's section names.
[[nodiscard]] std::string_view cost_family_name(CostFamily family);

// The cluster's network as counted by the caller from the built topology.
struct BillOfMaterials {
  long nics = 0;               // host ports, one NIC (or NIC port priced as a NIC) each
  long switches = 0;           // switch boxes of any tier
  long switch_ports_used = 0;  // switch ports with a cable in them, host- and fabric-facing
  long host_links = 0;         // NIC-to-leaf cables of no named class
  long fabric_links = 0;       // switch-to-switch cables of no named class
  // Links whose cable or optic class the topology names (link.cable), by
  // class in first-seen order; priced per class, not as host/fabric links.
  std::vector<std::pair<std::string, long>> cable_links;
  double link_gbps = 0;  // link rate; recorded with the result, prices assume it
};

// Prices and rates for one family, all per unit so the bill of materials
// scales them. Keys in comments are the evaluation file's.
struct CostInputs {
  CostFamily family = CostFamily::kIdeal;
  int years = 5;                           // years: ownership period (shared by all families)
  double nic_usd = 0;                      // nic: one NIC
  double switch_port_usd = 0;              // switch_port: switch price / radix
  double host_link_usd = 0;                // host_link: one NIC-leaf link with both ends' optics
  double fabric_link_usd = 0;              // fabric_link: one switch-switch link with both ends' optics
  double nic_w = 0;                        // nic_w: one NIC with its transceiver
  double switch_port_w = 0;                // switch_port_w: switch power / radix, plus one transceiver
  double usd_per_kwh = 0;                  // usd_per_kwh: electricity price
  double pue = 1;                          // pue: facility power / IT power
  double licence_usd_per_switch_year = 0;  // licence_per_switch_year: management software, NOS, support
  double staff_fte_per_100_switches = 0;   // staff_fte_per_100_switches: network operations staff
  double staff_salary_usd = 0;             // staff_salary: yearly salary of one such engineer
  double staff_overhead = 1;               // staff_overhead: loaded cost / salary (benefits, tools, training)
  // link_<class>: one link of that cable or optic class with both ends, for
  // the classes the evaluated cluster names (only those: a price for a class
  // the cluster does not use would change nothing).
  std::vector<std::pair<std::string, double>> cable_link_usd;
  [[nodiscard]] double cable_link(std::string_view cable) const;
};

// One row of the defaults table a report prints.
struct CostInputInfo {
  std::string key;     // evaluation-file key, e.g. "nic"
  double value = 0;    // the default
  std::string unit;    // e.g. "USD", "W", "USD/kWh"
  std::string source;  // citation, or "assumption: ..." with the reasoning
  double low = 0;      // range the sensitivity analysis varies over; low <= value <= high
  double high = 0;
};

// The defaults of `family` with their sources (empty for kIdeal). `years`
// is listed under every family. Prices and powers are for 400 Gb/s parts
// (NDR, 400GbE); an evaluation at another link rate must override them.
[[nodiscard]] std::vector<CostInputInfo> cost_input_info(CostFamily family);
[[nodiscard]] CostInputs default_cost_inputs(CostFamily family, const std::vector<std::string>& cables = {});
// The default price of one link of a cable or optic class (link_<class>),
// with its source and range; every class link.cable accepts has one.
[[nodiscard]] CostInputInfo cable_link_info(std::string_view cable);

struct CostLine {
  std::string item;      // e.g. "NICs"
  std::string category;  // "capex" or "opex"
  double usd = 0;
  std::string formula;              // the arithmetic with its numbers, e.g. "32 NICs x 2000 USD"
  std::vector<std::string> inputs;  // what it reads: "bom.nics", "nic", ...
};

struct CostResult {
  bool applicable = true;  // false for kIdeal: no lines, totals 0, reported as n/a
  std::vector<CostLine> lines;
  double capex = 0;  // sum of the capex lines
  double opex = 0;   // sum of the opex lines, over the whole period
  double total = 0;  // capex + opex
};

// Lines, with H = 8760 hours a year and Y = years:
//   capex  NICs          nics x nic
//          Switches      switch_ports_used x switch_port   (whole switches when every port is used)
//          Host links    host_links x host_link
//          Fabric links  fabric_links x fabric_link
//          Links (<c>)   cable_links[c] x link_<c>, for each class c the topology names
//   opex   NIC power     nics x nic_w x pue / 1000 x H x Y x usd_per_kwh
//          Switch power  switch_ports_used x switch_port_w x pue / 1000 x H x Y x usd_per_kwh
//          Licences      switches x licence_per_switch_year x Y
//          Staff         switches / 100 x staff_fte_per_100_switches x staff_salary x staff_overhead x Y
// Each line reads only the inputs it names, so changing one price changes
// exactly the lines that list it (and the totals).
[[nodiscard]] CostResult compute_tco(const BillOfMaterials& bom, const CostInputs& in);

constexpr double kHoursPerYear = 8760;

// usd / delivered, e.g. USD per GB/s of bus bandwidth. Throws
// std::invalid_argument unless delivered > 0.
[[nodiscard]] double usd_per(double usd, double delivered);
// The whole period's cost spread evenly over its hours. Both throw
// std::invalid_argument for a result that is not applicable (kIdeal), which
// has no cost to spread rather than a cost of zero.
[[nodiscard]] double usd_per_hour(const CostResult& r, int years);
// What one training iteration of `iteration_seconds` costs at usd_per_hour.
[[nodiscard]] double usd_per_iteration(const CostResult& r, int years, double iteration_seconds);

// Reads the evaluation file's optional `cost:` section:
//   cost:
//     years: 5
//     infiniband: {nic: 2500, switch_port: 300, staff_fte_per_100_switches: 2}
//     roce: {...}
//     iwarp: {...}
// Absent keys keep the defaults. All three family sections are checked,
// whichever is asked for, so a typo fails every run; then finish() refuses
// unknown keys. `cables` are the classes the cluster names: a link_<class>
// key for any other class is refused (it would change nothing). Throws
// InputError (file:line:column, key, what was expected).
[[nodiscard]] CostInputs load_cost_inputs(const CfgNode& cost_section, CostFamily family,
                                          const std::vector<std::string>& cables = {});

[[nodiscard]] nlohmann::ordered_json cost_inputs_json(const CostInputs& in);
[[nodiscard]] nlohmann::ordered_json bill_of_materials_json(const BillOfMaterials& bom);
[[nodiscard]] nlohmann::ordered_json cost_result_json(const CostResult& r);

}  // namespace rdmasim
