//===- Machine.h - what the advisor reads of this machine -------*- C++ -*-===//
///
/// \file
/// The last-level cache the advisor's model uses, from sysfs
/// (/sys/devices/system/cpu/cpuN/cache/indexK/{level,type,size,
/// shared_cpu_list}): the highest-level data or unified cache of cpu0, and
/// how many such caches the machine has (one per socket, per CCD on AMD,
/// per sub-NUMA cluster): a process that spans several sees more, which
/// the plan's note says. `hmplan advise --llc SIZE` overrides it (profile
/// on one machine, plan for another). $HMPLACE_SYSFS names another root
/// (tests).
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMPLAN_MACHINE_H
#define HMPLACE_HMPLAN_MACHINE_H

#include "Shares.h"
#include "plan/Diag.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <string>

namespace hmplace {

/// The last-level cache of this machine in bytes, else 32 MiB; \p Source
/// says which, and which cache (for the plan's note).
uint64_t detectLLC(std::string &Source);

/// What `hmplan advise --machine` takes from a machine description
/// (`hmplan probe -o machine.yaml`, Probe.h): each tier's bandwidth and
/// capacity.
struct MachineFile {
  Bandwidths BW;
  std::map<std::string, uint64_t> Capacity; ///< hbm, ddr, ... -> bytes
};

/// Read \p Path; every problem is an error at its line and column.
bool readMachineFile(llvm::StringRef Path, MachineFile &M, DiagEngine &D);

} // namespace hmplace

#endif
