/*===- tier.h - which tier a probed NUMA node is --------------------------===*
 *
 * The naming rule of `hmplan probe`, apart from the measuring so that it is
 * tested alone (test/unit/ProbeTierTest.cpp).
 *===----------------------------------------------------------------------===*/
#ifndef HMPLACE_PROBE_TIER_H
#define HMPLACE_PROBE_TIER_H

#ifdef __cplusplus
extern "C" {
#endif

/* How much faster than the fastest node with CPUs a memory-only node must
 * measure to be HBM (20%). */
#define HMPLACE_PROBE_HBM_FACTOR 1.2

/* The tier of a node: "hbm" for memkind's high-bandwidth nodes, or a
 * memory-only node measured HMPLACE_PROBE_HBM_FACTOR times faster than
 * \p ddr_best (the fastest node with CPUs, bytes/s; 0 unmeasured); "ddr"
 * for a node with CPUs; "slow" for other memory-only nodes (PMem, CXL). */
const char *hmplace_probe_tier(int memkind_hbw, int has_cpus, double measured,
                               double ddr_best);

#ifdef __cplusplus
}
#endif

#endif
