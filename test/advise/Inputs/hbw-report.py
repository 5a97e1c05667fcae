# The runtime's JSON reports (HMPLACE_REPORT=json:PATH): per report, HBW's
# allocations, its peak usable bytes against a capacity, and its fallbacks.
#   hbw-report.py CAPACITY REPORT.json...
import json, os, sys
cap = int(sys.argv[1])
for path in sys.argv[2:]:
    with open(path) as f:
        report = json.load(f)
    for k in report["kinds"]:
        if k["kind"] == "MEMKIND_HBW":
            peak = k["peak_live"]
            print("%s: MEMKIND_HBW allocs %d, peak usable %d %s %d, "
                  "fallbacks %d" % (os.path.basename(path), k["allocs"], peak,
                                    "<=" if peak <= cap else ">", cap,
                                    k["fallbacks"]))
