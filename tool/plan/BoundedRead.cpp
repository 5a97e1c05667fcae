//===- BoundedRead.cpp - every input read with a size bound ---------------===//
#include "plan/BoundedRead.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <system_error>

using namespace llvm;

namespace hmplace {

namespace {
constexpr uint64_t MiB = uint64_t(1) << 20, GiB = uint64_t(1) << 30;

/// "256 MiB", "4 GiB".
std::string sizeText(uint64_t Bytes) {
  if (Bytes % GiB == 0)
    return std::to_string(Bytes / GiB) + " GiB";
  return std::to_string(Bytes / MiB) + " MiB";
}

/// A pipe's or device's content, read up to \p Bound bytes; null with
/// \p Err past it.
std::unique_ptr<MemoryBuffer> readStream(StringRef Path, uint64_t Bound,
                                         InputKind K, std::string &Err) {
  Expected<sys::fs::file_t> F = sys::fs::openNativeFileForRead(Path);
  if (!F) {
    Err = toString(F.takeError());
    return nullptr;
  }
  SmallVector<char, 0> Data;
  constexpr size_t Chunk = 1 << 16;
  for (;;) {
    size_t Have = Data.size();
    Data.resize_for_overwrite(Have + Chunk);
    Expected<size_t> Got = sys::fs::readNativeFile(
        *F, MutableArrayRef<char>(Data.data() + Have, Chunk));
    if (!Got) {
      sys::fs::closeFile(*F);
      Err = toString(Got.takeError());
      return nullptr;
    }
    Data.truncate(Have + *Got);
    if (!*Got || Data.size() > Bound)
      break;
  }
  sys::fs::closeFile(*F);
  if (Data.size() > Bound) {
    Err = std::string("it goes on past ") + sizeText(Bound) +
          ", what HmPlace reads of a pipe or device as " + inputName(K) +
          " (an endless input?)";
    return nullptr;
  }
  return MemoryBuffer::getMemBufferCopy(StringRef(Data.data(), Data.size()),
                                        Path);
}
} // namespace

uint64_t inputBound(InputKind K) {
  switch (K) {
  case InputKind::Profile:
    return 16 * GiB; // a raw MemProf profile of a long, large run
  case InputKind::Machine:
    return 16 * MiB;
  case InputKind::Plan:
  case InputKind::Report:
  case InputKind::Source:
    return 256 * MiB;
  }
  return 256 * MiB;
}

uint64_t streamBound() { return 256 * MiB; }

const char *inputName(InputKind K) {
  switch (K) {
  case InputKind::Plan:
    return "a plan";
  case InputKind::Profile:
    return "a profile";
  case InputKind::Machine:
    return "a machine description";
  case InputKind::Report:
    return "a report";
  case InputKind::Source:
    return "a source file";
  }
  return "an input";
}

std::unique_ptr<MemoryBuffer> readBounded(StringRef Path, InputKind K,
                                          std::string &Err,
                                          bool NullTerminated) {
  sys::fs::file_status St;
  if (std::error_code EC = sys::fs::status(Path, St)) {
    Err = EC.message();
    return nullptr;
  }
  if (St.type() == sys::fs::file_type::directory_file) {
    Err = std::make_error_code(std::errc::is_a_directory).message();
    return nullptr;
  }
  uint64_t Bound = inputBound(K);
  if (St.type() != sys::fs::file_type::regular_file)
    return readStream(Path, std::min(Bound, streamBound()), K, Err);
  if (St.getSize() > Bound) {
    Err = "it is " + std::to_string(St.getSize()) + " bytes, over " +
          sizeText(Bound) + ", the most HmPlace reads of " + inputName(K);
    return nullptr;
  }
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf =
      MemoryBuffer::getFile(Path, /*IsText=*/false, NullTerminated);
  if (!Buf) {
    Err = Buf.getError().message();
    return nullptr;
  }
  return std::move(*Buf);
}

} // namespace hmplace
