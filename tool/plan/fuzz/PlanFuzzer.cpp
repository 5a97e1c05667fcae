//===- PlanFuzzer.cpp - libFuzzer target for plan readers and writer ------===//
///
/// \file
/// Feeds arbitrary bytes to every plan reader (forced format, so each sees
/// every input) and, for inputs that parse, checks that writing the plan as
/// YAML and reading it back gives the same YAML: `hmplan convert` must be
/// round-trip stable for anything it accepts. Any crash, sanitizer report or
/// broken round trip is a finding.
///
//===----------------------------------------------------------------------===//
#include "plan/Plan.h"

#include <cstdlib>

using namespace hmplace;

static std::string toYaml(const Plan &P) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  writeYaml(P, OS);
  return S;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef In(reinterpret_cast<const char *>(Data), Size);
  for (PlanFormat F : {PlanFormat::Yaml, PlanFormat::Locations,
                       PlanFormat::MemoryDefinitions}) {
    std::string Diags;
    llvm::raw_string_ostream DOS(Diags);
    DiagEngine D(DOS);
    auto P =
        parsePlan(llvm::MemoryBuffer::getMemBufferCopy(In, "fuzz.plan"), D, F);
    if (!P)
      continue;
    std::string Y1 = toYaml(*P);
    DiagEngine D2(DOS);
    auto P2 = parsePlan(llvm::MemoryBuffer::getMemBufferCopy(Y1, "rt.yaml"), D2,
                        PlanFormat::Yaml);
    if (!P2) {
      llvm::errs() << "round trip failed to parse:\n" << Y1 << "\n" << Diags;
      abort();
    }
    if (toYaml(*P2) != Y1) {
      llvm::errs() << "round trip unstable:\n" << Y1 << "---\n" << toYaml(*P2);
      abort();
    }
    // Matching must cope with whatever the plan holds.
    SiteMatcher M(*P2);
    CallContext C;
    C.Frames.push_back({"/src/a.c", 1, 1});
    C.CompileDir = "/src";
    M.addCall(C);
    M.resolve();
  }
  return 0;
}
