//===- RawProfileFuzzer.cpp - libFuzzer target for raw profile checks -----===//
///
/// \file
/// Feeds arbitrary bytes to the structure check that runs before LLVM's raw
/// MemProf reader (RawProfile.h). It must never read outside the input, and
/// what it accepts must hold together: every profile it counts fits in the
/// file, every build id it reports is hex. Any crash, sanitizer report or
/// inconsistent result is a finding.
///
//===----------------------------------------------------------------------===//
#include "RawProfile.h"

#include <cstdlib>
#include <string>

using namespace hmplace;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  // A copy of exactly Size bytes, so that ASan sees any read past the end.
  std::string Copy(reinterpret_cast<const char *>(Data), Size);
  llvm::StringRef In(Copy);
  bool Looks = looksLikeRawMemProfile(In);
  RawProfileFacts Facts;
  std::string Err;
  bool OK = scanRawMemProfile(In, Facts, Err);
  if (OK && !Looks)
    abort(); // accepted without the magic number
  if (!OK && Err.empty())
    abort(); // refused without saying why
  if (OK && (Facts.Profiles == 0 || Facts.Profiles * 48 > Size))
    abort(); // a profile is at least its header
  for (const std::string &Id : Facts.BuildIds)
    if (Id.find_first_not_of("0123456789abcdef") != std::string::npos)
      abort();
  // A version 5 profile widened for LLVM 19's reader is a profile of the
  // same records and stacks.
  std::string Widened = OK ? rawAsReadable(In) : "";
  if (!Widened.empty()) {
    RawProfileFacts W;
    std::string WErr;
    if (!scanRawMemProfile(Widened, W, WErr) ||
        W.Allocations != Facts.Allocations || W.Stacks != Facts.Stacks ||
        W.Profiles != Facts.Profiles)
      abort();
  }
  return 0;
}
