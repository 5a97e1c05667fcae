//===- IndexedProfileFuzzer.cpp - libFuzzer target for old indexed MemProf ===//
///
/// \file
/// Feeds arbitrary bytes to HmPlace's own reader of the memory profile
/// versions 0 and 1 in an indexed profile (IndexedProfile.h), which LLVM
/// 22's reader no longer reads, and to fitIndexedProfile, which rewrites
/// headers (version 4's memory profile as 3's) for LLVM 19's and 22's
/// readers, and to checkIndexedLayout (IndexedLayout.h). None may read
/// outside the input; each says why when it
/// refuses (and only then); what the reader hands out is read whole (ASan
/// checks the frames' and fields' memory); a rewritten profile keeps the
/// input's length.
///
//===----------------------------------------------------------------------===//
#include "IndexedLayout.h"
#include "IndexedProfile.h"

#include <cstdlib>
#include <string>

using namespace hmplace;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  // A copy of exactly Size bytes, so that ASan sees any read past the end.
  std::string Copy(reinterpret_cast<const char *>(Data), Size);
  std::string Why;
  volatile uint64_t Sum = 0;
  bool OK = readOldMemProf(
      Copy,
      [&](uint64_t GUID, llvm::ArrayRef<llvm::memprof::AllocationInfo> Sites) {
        Sum += GUID;
        for (const llvm::memprof::AllocationInfo &AI : Sites) {
          for (const llvm::memprof::Frame &F : AI.CallStack)
            Sum += F.Function + F.LineOffset + F.Column;
          Sum += AI.Info.getAllocCount() + AI.Info.getTotalSize();
        }
      },
      Why);
  if (OK != Why.empty())
    abort(); // refused without saying why, or accepted with a reason
  std::string Corrupt;
  if (checkIndexedLayout(Copy, Corrupt) != Corrupt.empty())
    abort();
  for (IndexedReader Reader :
       {IndexedReader{19, 12, 0, 3}, IndexedReader{22, 13, 2, 4}}) {
    std::string Patched, Refused;
    bool Fits = fitIndexedProfile(Copy, Reader, Patched, Refused);
    if (Fits != Refused.empty() || (!Patched.empty() && Patched.size() != Size))
      abort();
  }
  return 0;
}
