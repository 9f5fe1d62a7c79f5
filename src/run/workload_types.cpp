// The workload registry: every type a scenario's `workload:` list may name.
// Adding a type is one class behind the Workload interface plus one line here.
#include <array>

#include "collective/collective_workload.h"
#include "mpi/halo.h"
#include "mpi/osu.h"
#include "storage/nvmeof.h"
#include "training/training_workload.h"
#include "workload/flow_workloads.h"
#include "workload/perftest.h"
#include "workload/stream.h"
#include "workload/workload.h"

namespace rdmasim {
namespace {

const std::array<const WorkloadType*, 14>& registry() {
  static const std::array<const WorkloadType*, 14> types = {
      &incast_workload_type(),     &permutation_workload_type(), &all_to_all_workload_type(),
      &cdf_workload_type(),        &flows_file_workload_type(),  &flow_workload_type(),
      &collective_workload_type(), &training_workload_type(),    &background_workload_type(),
      &perftest_workload_type(),   &osu_workload_type(),         &halo_workload_type(),
      &nvmeof_workload_type(),     &stream_workload_type()};
  return types;
}

}  // namespace

const WorkloadType* find_workload_type(std::string_view name) {
  for (const WorkloadType* t : registry())
    if (t->name == name) return t;
  return nullptr;
}

std::vector<std::string_view> workload_type_names() {
  std::vector<std::string_view> names;
  for (const WorkloadType* t : registry()) names.push_back(t->name);
  return names;
}

}  // namespace rdmasim
