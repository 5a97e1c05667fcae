/*===- tier.c - which tier a probed NUMA node is --------------------------===*/
#include "tier.h"

const char *hmplace_probe_tier(int memkind_hbw, int has_cpus, double measured,
                               double ddr_best) {
  if (memkind_hbw)
    return "hbm";
  if (has_cpus)
    return "ddr";
  if (ddr_best > 0 && measured > HMPLACE_PROBE_HBM_FACTOR * ddr_best)
    return "hbm";
  return "slow";
}
