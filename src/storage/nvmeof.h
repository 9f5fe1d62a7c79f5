// NVMe over Fabrics on RDMA (NVMe/RDMA, NVMe-oF 1.1 §3 and the RDMA
// transport binding), as fio drives it: initiators run `numjobs` jobs, each
// an NVMe I/O queue (one QP pair to one target) keeping `iodepth` commands
// in flight for `runtime`.
//
// One I/O:
//   the initiator's host path (`host_overhead`), then a command capsule
//   SEND (64 B SQE; a write up to `in_capsule_data` carries its data in it);
//   the target's path (`target_overhead`);
//   a write whose data is not in the capsule: the target RDMA READs it;
//   the SSD serves it (ssd: latency per I/O and an IOPS ceiling, as
//   parallel units by Little's law);
//   a read: the target RDMA WRITEs the data; then a response capsule SEND
//   (16 B CQE) on the same QP, which RC delivers after the data;
//   the I/O completes when the response lands (clat: submit to completion).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/units.h"
#include "workload/workload.h"

namespace rdmasim {

// Defaults: a PM1733-class datacenter NVMe SSD (sources in docs/STORAGE.md).
struct SsdConfig {
  // A local fio QD1 4 KiB randread on 2x Samsung PM1733 measured clat avg
  // 69.18 us (Ignalina/racksetup performance/readme.md, fio 3.28, libaio),
  // less about 4 us of the local kernel path (assumption).
  Time read_latency = Time::from_us(65);
  // Assumption: a write lands in the SSD's power-protected DRAM cache.
  Time write_latency = Time::from_us(20);
  // Samsung PM1733 specification: 1,450,000 random read / 260,000 random
  // write IOPS (4 KiB).
  int64_t read_iops = 1'450'000;
  int64_t write_iops = 260'000;

  template <class V>
  void visit(V& v) {
    v.time({"read_latency", "service time of one read (4 KiB class)"}, read_latency, kPositive);
    v.time({"write_latency", "service time of one write (to the SSD's write cache)"}, write_latency,
           kPositive);
    v.count({"read_iops", "random read IOPS ceiling"}, read_iops, 1, int64_t{1} << 32);
    v.count({"write_iops", "random write IOPS ceiling"}, write_iops, 1, int64_t{1} << 32);
  }
};

struct NvmeofParams final : WorkloadParams {
  std::vector<int> initiators;  // host indices; empty: host 0
  std::vector<int> targets;     // empty: the last host
  std::string rw = "randread";  // randread | randwrite | randrw
  double rwmixread = 0.5;       // randrw: share of reads (fio's rwmixread=50)
  int64_t bs = 4096;
  int iodepth = 1;
  int numjobs = 1;
  Time runtime = Time::from_ms(10);
  Time ramp_time = Time::zero();
  // The target's in-capsule data size: Linux nvmet-rdma's default
  // (PAGE_SIZE) and SPDK's SPDK_NVMF_RDMA_DEFAULT_IN_CAPSULE_DATA_SIZE, 4096.
  int64_t in_capsule_data = 4096;
  // Software paths per I/O, from SPDK's CI latency (spdk/spdk#3012, 4 KiB
  // randread QD1 over RDMA): SPDK initiator + SPDK target 4.64 us, kernel
  // initiator + SPDK target 10.4 us. Assumption: SPDK's target path 1 us,
  // leaving the kernel (nvme-rdma) initiator 6.8 us with ~2.6 us of fabric.
  Time host_overhead = Time::from_ns(6800);
  Time target_overhead = Time::from_us(1);
  int traffic_class = -1;  // -1: the fabric's data class
  SsdConfig ssd;
};

// fio's completion-latency figures for one direction.
struct FioDirection {
  uint64_t ios = 0;
  int64_t bytes = 0;
  double iops = 0;
  double bw_bytes_per_s = 0;
  std::vector<double> clat_us;  // one per I/O completed in the measured window
};

struct NvmeofResult {
  std::string rw;
  int64_t bs = 0;
  int iodepth = 0, numjobs = 0, initiators = 0, targets = 0;
  Time runtime;
  FioDirection read, write;
};

// What an `nvmeof` workload measured; throws std::bad_cast for another type.
[[nodiscard]] NvmeofResult nvmeof_result(const Workload& w);
[[nodiscard]] const WorkloadType& nvmeof_workload_type();

}  // namespace rdmasim
