//===- Session.cpp - decide every recorded call and plan the edits --------===//
//
// Two phases. While each translation unit is parsed, calls are recorded as
// plain data (Collect.cpp): the AST is gone once the TU ends, and placement
// rules look at all calls of all files at once (SiteMatcher). finish() then
// decides and emits Replacements.
//
//===----------------------------------------------------------------------===//
#include "KeyRecord.h"
#include "Rewrite.h"
#include "Spelling.h"
#include "Splice.h"
#include "plan/Decision.h"
#include "plan/Split.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

using namespace clang;
using namespace llvm;

namespace hmplace {

RewriteSession::RewriteSession(PlanSource *Src, DiagEngine &D)
    : Src(Src), ThePlan(Src ? &Src->plan() : nullptr), D(D) {
  if (ThePlan)
    makeMatcher();
}

void RewriteSession::seeFile(StringRef Name) {
  // The matcher holds pointers into the plan's entries: made again when
  // entries come (during parsing it only answers which lines hold callers).
  if (Src && Src->load(sys::path::filename(Name)))
    makeMatcher();
}

bool RewriteSession::headerSelected(StringRef Path) const {
  return !HeaderFilter.empty() && Regex(HeaderFilter).match(Path);
}

void RewriteSession::addTU(std::vector<CallRecord> TUCalls, MainFileInfo Info) {
  // A call in a header is seen once per TU that includes it, a call in a
  // main file once per compile command of the file. The TU where the
  // header's edits are allowed (it is the main file, or selected) has the
  // say, whatever the order of the files.
  // Calls are found again through a hash of what makes them the same call.
  auto Same = [](const CallRecord &A, const CallRecord &B) {
    // (A caller frame has no callee offset; its key's offset tells two
    // calls apart whose keys are alike: one an earlier run's note says is
    // at a line, one that a reformat moved there.)
    return A.Key.Line == B.Key.Line && A.Key.Column == B.Key.Column &&
           A.CalleeOffset == B.CalleeOffset && A.Key.File == B.Key.File &&
           A.EditFile == B.EditFile && A.HaveKeyOffset == B.HaveKeyOffset &&
           A.KeyOffset == B.KeyOffset;
  };
  Calls.reserve(Calls.size() + TUCalls.size());
  for (CallRecord &C : TUCalls) {
    // EditFile is interned: its address stands for its text.
    SmallVector<size_t, 1> &Bucket = SeenCalls[hash_combine(
        C.Key.Line, C.Key.Column, C.EditFile.data(), C.CalleeOffset)];
    auto Dup =
        llvm::find_if(Bucket, [&](size_t I) { return Same(Calls[I], C); });
    if (Dup != Bucket.end()) {
      CallRecord &Old = Calls[*Dup];
      if (Old.Edit == CallRecord::InOtherFile &&
          C.Edit != CallRecord::InOtherFile)
        Old = std::move(C);
      else if (Old.NotPlaceable.empty())
        Old.NotPlaceable = C.NotPlaceable;
      continue;
    }
    Bucket.push_back(Calls.size());
    if (!C.EditFile.empty() && C.EditFile != Info.Path &&
        headerSelected(C.EditFile) && C.Edit != CallRecord::InSystemHeader)
      Headers.insert(C.EditFile.str());
    Calls.push_back(std::move(C));
  }
  FilesRead.insert(Info.FilesRead.begin(), Info.FilesRead.end());
  for (auto &[Name, Positions] : Info.CallsTo) {
    std::vector<SourcePos> &V = CallsTo[Name];
    for (SourcePos &P : Positions)
      if (V.size() < 2 && llvm::none_of(V, [&](const SourcePos &Q) {
            return Q.File == P.File && Q.Line == P.Line && Q.Column == P.Column;
          }))
        V.push_back(std::move(P));
  }
  AddressTaken.insert(Info.AddressTaken.begin(), Info.AddressTaken.end());
  // A call cannot allocate only where every TU that sees it says so.
  for (auto &[Path, Offsets] : Info.CallsNearSites)
    for (auto [Off, Harmless] : Offsets)
      if (auto [It, New] = CallsNearSites[Path].try_emplace(Off, Harmless);
          !New)
        It->second &= Harmless;
  SkippedCalls.insert(Info.SkippedCalls.begin(), Info.SkippedCalls.end());
  Info.SkippedCalls.clear();
  for (auto &[Path, L] : Info.Layouts)
    Layouts.try_emplace(Path, std::move(L));
  Info.Layouts.clear();
  MainFiles[Info.Path] = std::move(Info);
}

std::vector<std::pair<std::string, unsigned>>
RewriteSession::unexaminedCalls() const {
  std::vector<std::pair<std::string, unsigned>> Out;
  if (SkippedCalls.empty())
    return Out;
  // A call inactive in one TU may be active in another (the same file built
  // twice with different macros): only the calls no TU saw count.
  std::set<std::pair<std::string, unsigned>> Seen;
  for (const CallRecord &C : Calls)
    if (C.Fn && !C.EditFile.empty())
      Seen.insert({C.EditFile.str(), C.CalleeOffset});
  for (const auto &[P, Line] : SkippedCalls)
    if (!Seen.count(P))
      Out.push_back({P.first, Line});
  llvm::sort(Out);
  return Out;
}

unsigned RewriteSession::skippedCount() const {
  return unexaminedCalls().size();
}

std::vector<const CallRecord *> RewriteSession::callerSites() const {
  std::vector<const CallRecord *> Out;
  for (const CallRecord &C : Calls)
    if (!C.Fn && C.Note && C.Note->ContainerOp.empty())
      Out.push_back(&C);
  return Out;
}

std::vector<const CallRecord *> RewriteSession::containerSites() const {
  std::vector<const CallRecord *> Out;
  for (const CallRecord &C : Calls)
    if (C.Note && !C.Note->ContainerOp.empty())
      Out.push_back(&C);
  llvm::sort(Out, [](const CallRecord *A, const CallRecord *B) {
    return std::tie(A->Key.File, A->Key.Line, A->Key.Column) <
           std::tie(B->Key.File, B->Key.Line, B->Key.Column);
  });
  // The same line and column once (a template's instances).
  Out.erase(std::unique(Out.begin(), Out.end(),
                        [](const CallRecord *A, const CallRecord *B) {
                          return A->Key.File == B->Key.File &&
                                 A->Key.Line == B->Key.Line &&
                                 A->Key.Column == B->Key.Column;
                        }),
            Out.end());
  return Out;
}

std::vector<const CallRecord *> RewriteSession::allocationSites() const {
  std::vector<const CallRecord *> Out;
  for (const CallRecord &C : Calls)
    if (C.Fn && C.Fn->allocates())
      Out.push_back(&C);
  llvm::sort(Out, [](const CallRecord *A, const CallRecord *B) {
    return std::tie(A->Key.File, A->Key.Line, A->Key.Column) <
           std::tie(B->Key.File, B->Key.Line, B->Key.Column);
  });
  return Out;
}

void RewriteSession::warnAt(const CallRecord &C, const Twine &Msg) {
  D.report(C.Key.str(), Severity::Warning, Msg);
}

void RewriteSession::addEdit(StringRef File, unsigned Offset, unsigned Length,
                             StringRef Text) {
  // The same edit twice (a macro argument expanded twice) is one edit.
  auto FileIt = Edits.find(File);
  if (FileIt == Edits.end())
    FileIt = Edits.try_emplace(File.str()).first;
  tooling::Replacements &Reps = FileIt->second;
  SmallVector<SeenEdit, 1> &Same =
      EditSet[hash_combine(File, Offset, Length, Text)];
  for (const SeenEdit &E : Same)
    if (E.Offset == Offset && E.Length == Length && E.Text == Text &&
        *E.File == File)
      return;
  Same.push_back({&FileIt->first, Offset, Length, Text.str()});
  tooling::Replacement R(File, Offset, Length, Text);
  if (Error E = Reps.add(R)) {
    // A fault of the rewriter: this file is left as it is, the others are
    // still written.
    std::string Why = toString(std::move(E));
    if (Conflicted.insert(File.str()).second) {
      D.report(File, Severity::Error,
               "not rewritten: two of its edits overlap (an hmrewrite "
               "fault; please report it): " +
                   StringRef(Why)
                       .take_until([](char C) { return C == '\n'; })
                       .str());
      ++ConflictErrors;
    }
  }
}

void RewriteSession::addInsertion(StringRef File, unsigned Offset,
                                  StringRef Text, long Order) {
  Insertions[File.str()][Offset].emplace_back(Order, InsertionSeq++,
                                              Text.str());
}

void RewriteSession::flushInsertions() {
  for (auto &[File, ByOffset] : Insertions)
    for (auto &[Offset, Texts] : ByOffset) {
      llvm::sort(Texts);
      std::string Text;
      for (const auto &T : Texts)
        Text += std::get<2>(T);
      addEdit(File, Offset, 0, Text);
    }
  Insertions.clear();
}

/// A rerun that took out every use of the runtime from a file takes out the
/// include an earlier run added too: the result is what a first run on the
/// original source gives.
bool RewriteSession::dropUnusedInclude(const std::string &File, StringRef Old,
                                       const FileLayout &Layout,
                                       const tooling::Replacements &Reps) {
  std::string New = splice(Old, Reps.begin(), Reps.end());
  // Any other mention (a placed call, a wrapper, the user's own use, even a
  // comment) keeps it.
  size_t Mentions = 0;
  for (StringRef T = New;;) {
    size_t A = T.find("hmplace"), B = T.find("HMPLACE");
    size_t At = std::min(A, B);
    if (At == StringRef::npos)
      break;
    ++Mentions;
    T = T.drop_front(At + 7);
  }
  if (Mentions != 1)
    return false;
  std::optional<IncludeEdit> E = runtimeIncludeRemoval(Old, Layout);
  if (E)
    addEdit(File, E->Offset, E->Length, E->Text);
  return E.has_value();
}

/// Why a planned call at \p C cannot be edited, or null.
static const char *whyNotEditable(const CallRecord &C) {
  if (!C.NotPlaceable.empty())
    return C.NotPlaceable.c_str();
  switch (C.Edit) {
  case CallRecord::Editable:
    return nullptr;
  case CallRecord::InMacroBody:
    return "it is inside the body of a macro, which every use of the macro "
           "shares";
  case CallRecord::InSystemHeader:
    return "it is in a system header";
  case CallRecord::InOtherFile:
    return "it is in a file that is not being rewritten (only the files "
           "named on the command line are, and headers selected with "
           "--header-filter)";
  }
  return nullptr;
}

void RewriteSession::noteCaller(const CallRecord &C,
                                const std::vector<const PlanEntry *> &Through,
                                const std::string &Arg) {
  if (Failed.count(C.EditFile.str())) { // reported: it does not compile
    NotApplied.insert(Through.begin(), Through.end());
    return;
  }
  if (C.Note->CannotAllocate) {
    if (Remarks)
      D.report(C.Key.str(), Severity::Remark,
               "call at " + C.Key.str() +
                   " cannot allocate (its callee's code allocates nothing): "
                   "no note needed");
    return;
  }
  const char *Why = nullptr;
  if (!C.Note->NoteProblem.empty())
    Why = C.Note->NoteProblem.c_str();
  else if (C.Edit == CallRecord::InSystemHeader)
    Why = "it is in a system header";
  else if (C.Edit == CallRecord::InOtherFile || !isRewritten(C.EditFile))
    Why = "its file is not being rewritten (name it, or select its header "
          "with --header-filter)";
  if (Why) {
    warnAt(C, notNotedMessage(C.Key, Why));
    NotApplied.insert(Through.begin(), Through.end());
    return;
  }
  if (C.Note->Form == NoteSite::NoteBlock) {
    addEdit(C.EditFile, C.Note->NoteBegin, 0,
            blockOpening(Arg, C.Note->BlockBraces));
    addEdit(C.EditFile, C.Note->NoteEnd, 0,
            blockClosing(C.Key, C.Note->Here, C.Note->BlockBraces));
  } else {
    // Nested notes meet at offsets: the wider opens first, closes last.
    long Width = long(C.Note->NoteEnd - C.Note->NoteBegin);
    addInsertion(C.EditFile, C.Note->NoteBegin,
                 wrapperPrefix(C.Note->Form, Arg), -Width);
    if (C.Note->Form == NoteSite::NoteBinary) {
      addInsertion(C.EditFile, C.Note->LhsEnd, ",", Width);
      addInsertion(C.EditFile, C.Note->OpEnd, ",", Width);
    }
    addInsertion(C.EditFile, C.Note->NoteEnd, ")", Width);
  }
  ++tally(C.EditFile).Noted;
  if (Remarks)
    D.report(C.Key.str(), Severity::Remark,
             C.Note->Form == NoteSite::NoteBlock ? regionNotedRemark(C.Key)
                                                 : notedRemark(C.Key));
}

void RewriteSession::hintSiteEntry(const CallRecord &C, const Placement &P) {
  if (C.Enclosing.empty() || AddressTaken.count(C.Enclosing))
    return;
  auto It = CallsTo.find(C.Enclosing);
  if (It == CallsTo.end() || It->second.size() != 1)
    return;
  const SourcePos &Only = It->second.front();
  for (const ContextChoice &Ch : P.Choices) {
    const PlanEntry &E = *Ch.Entry;
    const EntryShape &Sh = Matcher->shape(E);
    if (Sh.How != EntryShape::Stack || Sh.EndCaller - Sh.FirstCaller != 1 ||
        !Hinted.insert(&E).second ||
        !Matcher->matches(E.Frames[Sh.FirstCaller], Only, C.CompileDir))
      continue;
    D.report(E.KeyLoc, Severity::Note,
             "plan entry '" + E.key() + "': '" + C.Enclosing +
                 "' has one caller in the given files (" + Only.str() +
                 "), so `site: " + E.Frames.front().str() +
                 "` would place the same objects with no note or table "
                 "(if no other file calls it)");
  }
}

void RewriteSession::placeCall(const CallRecord &C, const Placement &P,
                               const SiteDecision &Dec) {
  if (Failed.count(C.EditFile.str())) { // reported: it does not compile
    for (const PlanEntry *E : P.entries())
      NotApplied.insert(E);
    return;
  }
  const char *Why = whyNotEditable(C);
  if (!Why && !isRewritten(C.EditFile))
    Why = "its file is not being rewritten";
  if (Why) {
    warnAt(C, Twine("planned ") + C.Fn->Name + " (" +
                  (Dec.Act == SiteDecision::PlaceByCallers ? "by its callers"
                   : Dec.Act == SiteDecision::KeepOnHeap
                       ? "to the ordinary heap"
                       : runtimeCodeName(Dec.RuntimeKind)) +
                  ") not rewritten: " + Why +
                  (C.Macro.empty() ? "" : " ('" + C.Macro + "')") +
                  (C.NotPlaceable.empty()
                       ? "; place it with HmPlace.so or edit the code"
                       : ""));
    for (const PlanEntry *E : P.entries())
      NotApplied.insert(E);
    return;
  }
  if (Dec.Act == SiteDecision::KeepOnHeap) { // reported by the caller
    addEdit(C.EditFile, C.CalleeOffset, C.CalleeLength, C.Fn->Heap);
    ++tally(C.EditFile).ToHeap;
    return;
  }
  if (Dec.Act == SiteDecision::PlaceByCallers)
    hintSiteEntry(C, P);
  std::string KindText =
      Dec.Act == SiteDecision::PlaceByCallers ? byCallersArgument(Dec.Table)
      : Dec.windowed() ? windowArgument(Dec.RuntimeKind, C.SizeArgText,
                                        Dec.MinSize, Dec.MaxSize)
                       : kindArgument(Dec.RuntimeKind);
  if (C.IsNew) {
    addEdit(C.EditFile, C.NewOffset, 0,
            C.NewInParens ? KindText + ", " : " (" + KindText + ")");
  } else {
    addEdit(C.EditFile, C.CalleeOffset, C.CalleeLength, C.Fn->Placed);
    addEdit(C.EditFile, C.ArgOffset, 0, KindText + ", ");
  }
  ++tally(C.EditFile).Placed;
  if (Remarks)
    D.report(C.Key.str(), Severity::Remark, Dec.Remark);
}

/// A candidate caller frame: noted, its note kept, changed or taken out.
/// True for an earlier note no entry names now, which is decided once
/// every call has been asked (finish).
bool RewriteSession::decideFrame(const CallRecord &C) {
  CallContext Ctx = keyContext(C, C.Key);
  std::vector<const PlanEntry *> Through;
  bool Wanted = Matcher->isNoted(Ctx, &Through);
  if (!C.Refused.empty()) {
    warnAt(C, C.Refused);
    return false;
  }
  if (Wanted && !C.Note->CannotAllocate) // (else no note is written)
    noteNamed(C);
  // Container entries whose user frame this is: the note also arms the
  // standard allocator's allocations with their table (C++ only).
  std::string Table;
  if (C.Note->CPlusPlus && llvm::any_of(Through, [&](const PlanEntry *E) {
        return Matcher->shape(*E).How == EntryShape::Container;
      }))
    Table =
        contextTableText(ContainerSite, Matcher->containerChoicesFor(Ctx), -1);
  std::string Arg = callerArgument(C.Key, C.Note->Here, Table);
  if (C.Note->AlreadyNoted && !Wanted)
    return true;
  if (C.Note->AlreadyNoted)
    reconcileNote(C, Wanted, Arg);
  else if (Wanted)
    noteCaller(C, Through, Arg);
  return false;
}

bool RewriteSession::finish() {
  unsigned ErrorsBefore = D.errors();
  std::vector<Placement> Decisions;
  std::vector<int> CallIndex(Calls.size(), -1);
  std::vector<size_t> Unwanted; // earlier notes no entry names now
  // -v names every entry not examined: all of a large plan is needed then.
  if (Src && Verbose && Src->unloaded()) {
    Src->loadAll();
    makeMatcher();
  }
  // A file's key record names its calls as the plan did, wherever a
  // formatter or an edit has moved them since (KeyRecords.cpp); what an
  // earlier run wrote names the others (Rerun.cpp).
  applyKeyRecords();
  recoverKeys();
  if (Matcher) {
    for (size_t I = 0; I < Calls.size(); ++I)
      if (Calls[I].Fn && Calls[I].Fn->allocates() && !Calls[I].Unnamed &&
          Matcher->mayMatchLine(Calls[I].Key.Line)) {
        CallIndex[I] =
            int(Matcher->addCall(keyContext(Calls[I], Calls[I].Key)));
      }
    Decisions = Matcher->resolve();
  }

  for (size_t I = 0; I < Calls.size(); ++I) {
    const CallRecord &C = Calls[I];
    if (!C.Fn) {
      if (Matcher && !C.Unnamed && decideFrame(C))
        Unwanted.push_back(I); // once every call has been asked (below)
      continue;
    }
    static const Placement Unplanned;
    const Placement &P =
        CallIndex[I] >= 0 ? Decisions[CallIndex[I]] : Unplanned;
    if (!C.Refused.empty()) {
      warnAt(C, C.Refused);
      for (const PlanEntry *E : P.entries())
        NotApplied.insert(E);
      continue;
    }
    if (!P.entries().empty())
      noteNamed(C);
    SiteDecision Dec = decideSite(
        P, C.Key, C.Fn->Name,
        C.IsNew
            ? "a new-expression's size is computed by the compiler (HmPlace.so "
              "checks it)"
            : StringRef(C.NoSizeWhy));
    if (Dec.Act == SiteDecision::NotPlaced) {
      warnAt(C, Dec.Remark);
      for (const PlanEntry *E : P.entries())
        NotApplied.insert(E);
    } else if (Dec.Act == SiteDecision::KeepOnHeap && Remarks) {
      D.report(C.Key.str(), Severity::Remark, Dec.Remark);
    }
    if (C.AlreadyPlaced) {
      reconcilePlaced(C, Dec);
      continue;
    }
    // hbw_malloc & co sent to the heap are edited as placed calls are.
    if (Dec.places() || (Dec.Act == SiteDecision::KeepOnHeap && C.Fn->Heap)) {
      placeCall(C, P, Dec);
      continue;
    }
    // free, and realloc that is not placed (it keeps the block wherever it
    // lives), dispatch only when asked: libhmplace.so makes them safe for
    // any pointer, as HmPlace.so's programs rely on.
    if (DispatchFrees && C.Fn->Dispatch && !C.Dispatching &&
        (C.Edit == CallRecord::Editable || C.Edit == CallRecord::InMacroBody) &&
        !C.EditFile.empty() && isRewritten(C.EditFile)) {
      addEdit(C.EditFile, C.CalleeOffset, C.CalleeLength, C.Fn->Dispatch);
      ++tally(C.EditFile).Dispatch;
    }
  }
  // An earlier note no entry names where it is now is taken out, unless
  // caller frames in its file match no call: a reformatted file.
  for (size_t I : Unwanted) {
    const CallRecord &C = Calls[I];
    if (Matcher->hasUnnotedCallerIn(C.Key, C.CompileDir))
      warnAt(C, "noted in the source (" + C.Note->FirstText +
                    ") but no plan entry names this call where it is now, "
                    "while caller frames in its file match no call "
                    "(reformatted or edited since it was rewritten?); left "
                    "noted");
    else
      reconcileNote(C, false, "");
  }
  if (Matcher) {
    Coverage Cov;
    Cov.Read.assign(FilesRead.begin(), FilesRead.end());
    Cov.Failed.assign(Failed.begin(), Failed.end());
    Cov.ListUnexamined = Verbose;
    Cov.NotLoaded = Src ? Src->unloaded() : 0;
    Cov.Inactive = unexaminedCalls();
    for (const PlanEntry *E : Matcher->reportUsage(D, &Cov, &HeapUnmatched))
      NotApplied.insert(E);
    for (const PlanEntry *E : Matcher->reportUnnoted(D))
      NotApplied.insert(E);
  }
  if (Verbose)
    for (const auto &[File, Line] : unexaminedCalls())
      D.report(File + ":" + std::to_string(Line), Severity::Note,
               "allocation call in an inactive preprocessor branch: not "
               "examined (build with the macros that activate it and "
               "rewrite again)");

  flushInsertions();
  // Test hook: HMREWRITE_TEST_OVERLAP=NAME gives the edited file of that
  // name two overlapping edits, as a fault of the rewriter would (the test
  // suite checks that only that file is left alone).
  if (const char *Name = getenv("HMREWRITE_TEST_OVERLAP"))
    for (auto &[File, Reps] : Edits)
      if (sys::path::filename(File) == Name && !Reps.empty()) {
        addEdit(File, Reps.begin()->getOffset(), 2, "x");
        break;
      }
  // A file that failed with one of its commands is not rewritten at all,
  // whatever another command of it made of it.
  for (const std::string &F : Failed)
    Edits.erase(F);
  for (const std::string &F : Conflicted)
    Edits.erase(F);
  // A file whose key record changes though nothing else does.
  for (const auto &[File, Cs] : Named)
    if (isRewritten(File) && !Edits.count(File) && !Conflicted.count(File))
      Edits.try_emplace(File);
  for (auto &[File, Reps] : Edits)
    settleFile(File, Reps);
  for (auto It = Edits.begin(); It != Edits.end();)
    It = It->second.empty() ? Edits.erase(It) : std::next(It);
  // Overlapping edits cost their file only (see addEdit).
  return D.errors() - ConflictErrors == ErrorsBefore;
}

/// \p File's key record as this run leaves it (KeyRecord.h): what the plan
/// names there, while the file includes the runtime (\p Runtime); none
/// else.
void RewriteSession::settleRecord(const std::string &File, StringRef Old,
                                  const tooling::Replacements &Reps,
                                  bool Runtime, unsigned Width) {
  std::optional<KeyRecord> Had = findKeyRecord(Old);
  std::optional<KeyRecord> Want =
      Runtime ? wantRecord(File, Old, Reps) : std::nullopt;
  // The same keys under another plan stay as they are: the keys are that
  // plan's too.
  if ((!Had && !Want) || (Had && Want && Had->Keys == Want->Keys))
    return;
  StringRef EOL = Old.contains("\r\n") ? "\r\n" : "\n";
  std::string Text = Want ? keyRecordText(*Want, EOL, Width ? Width : 80) : "";
  ++tally(File).Records;
  if (Had)
    addEdit(File, Had->Begin, Had->End - Had->Begin, Text);
  else
    addEdit(File, unsigned(Old.size()), 0,
            (Old.empty() || Old.ends_with("\n") ? "" : EOL.str()) + Text);
}

/// The last edits of a file, on its text read once: the runtime include
/// added or taken out, and the rewritten lines in its tree's format
/// (Format.h; the formatter's edits compose with the rewrite's).
void RewriteSession::settleFile(const std::string &File,
                                tooling::Replacements &Reps) {
  if (Reps.empty() && !Named.count(File))
    return;
  auto L = Layouts.find(File);
  // An hbw_malloc sent to the heap as malloc needs no runtime header.
  auto NamesRuntime = [](const tooling::Replacement &R) {
    StringRef T = R.getReplacementText();
    return T.contains("hmplace") || T.contains("HMPLACE");
  };
  bool Include = L != Layouts.end() && !L->second.IncludesRuntime &&
                 llvm::any_of(Reps, NamesRuntime);
  auto Buf = MemoryBuffer::getFile(File);
  if (!Buf) {
    if (Include)
      D.report(File, Severity::Error,
               "cannot read: " + Buf.getError().message());
    return; // else the output step reports it
  }
  StringRef Old = (*Buf)->getBuffer();
  if (!fits(Old, Reps))
    return; // changed since it was parsed: the output step says so
  format::FormatStyle Style = treeStyle(File);
  bool Runtime = Include;
  if (Include)
    insertInclude(File, Old, L->second, Style, Reps.begin()->getOffset());
  else if (L != Layouts.end() && L->second.IncludesRuntime)
    Runtime = !dropUnusedInclude(File, Old, L->second, Reps);
  settleRecord(File, Old, Reps, Runtime, Style.ColumnLimit);
  if (Reps.empty())
    return;
  std::vector<std::pair<unsigned, unsigned>> Changed;
  std::string New = splice(Old, Reps.begin(), Reps.end(), 0, &Changed);
  std::set<unsigned> Harmless;
  if (auto H = CallsNearSites.find(File); H != CallsNearSites.end())
    for (auto [Off, Yes] : H->second)
      if (Yes)
        Harmless.insert(Reps.getShiftedCodePosition(Off));
  Formatted F = formatRewrittenLines(File, New, Changed, Style,
                                     /*AloneAllowed=*/true, Harmless);
  Reps = Reps.merge(F.Reps);
  tally(File).Broken += F.Broken;
  tally(File).Joined += F.Joined;
  for (const LineLeft &L : F.Left) {
    if (Verbose)
      D.report(File + ":" + std::to_string(L.Line), Severity::Note,
               "rewritten line of " + std::to_string(L.Width) +
                   " columns left whole over the column limit (" +
                   std::to_string(Style.ColumnLimit) + "): " + L.Why);
    LeftLong[File].push_back(L);
  }
}

static std::string count(unsigned N, StringRef One, StringRef Many) {
  return std::to_string(N) + " " + (N == 1 ? One : Many).str();
}

void RewriteSession::Tally::add(const Tally &O) {
  Placed += O.Placed, Dispatch += O.Dispatch, Noted += O.Noted;
  AlreadyPlaced += O.AlreadyPlaced, Rekinded += O.Rekinded;
  Unplaced += O.Unplaced, AlreadyNoted += O.AlreadyNoted;
  Reframed += O.Reframed, Unnoted += O.Unnoted, ToHeap += O.ToHeap;
  Broken += O.Broken, Joined += O.Joined, Records += O.Records;
}

/// "a.c, b.c and 3 more" for the files of \p Set.
static std::string fileNames(const std::set<std::string> &Set) {
  std::string Out;
  unsigned N = 0;
  for (const std::string &F : Set) {
    if (N == 3) {
      Out += " and " + std::to_string(Set.size() - 3) + " more";
      break;
    }
    Out += (N++ ? ", " : "") + sys::path::filename(F).str();
  }
  return Out;
}

std::string RewriteSession::summary(
    const std::map<std::string, std::string> &NotWritten) const {
  Tally T;
  unsigned FilesChanged = 0;
  for (const auto &[File, One] : Tallies)
    if (!NotWritten.count(File) && !Conflicted.count(File) &&
        !Failed.count(File))
      T.add(One);
  for (const auto &[File, Reps] : Edits)
    FilesChanged += !NotWritten.count(File) && !Reps.empty();
  std::string Out;
  unsigned Changes = T.Placed + T.Noted + T.Rekinded + T.Unplaced + T.Reframed +
                     T.Unnoted + T.Dispatch + T.ToHeap;
  if (Changes == 0 && (T.AlreadyPlaced || T.AlreadyNoted)) {
    if (T.AlreadyPlaced) {
      Out = T.AlreadyPlaced == 1 ? "the planned site is"
                                 : "the " + std::to_string(T.AlreadyPlaced) +
                                       " planned sites are";
      Out += " already placed";
      if (T.AlreadyNoted)
        Out += " (" + count(T.AlreadyNoted, "caller frame", "caller frames") +
               " noted)";
    } else {
      Out = T.AlreadyNoted == 1 ? "the caller frame is"
                                : "the " + std::to_string(T.AlreadyNoted) +
                                      " caller frames are";
      Out += " already noted";
    }
    if (T.Records)
      Out += "; " +
             count(T.Records, "file's key record", "files' key records") +
             " written with this plan's keys of its calls, nothing "
             "else changed";
    else
      Out += "; nothing to change";
  } else {
    Out = count(T.Placed, "site", "sites") + " placed (" +
          std::to_string(T.AlreadyPlaced) + " already";
    if (T.Rekinded)
      Out += ", " + std::to_string(T.Rekinded) +
             " moved to the kind the plan now gives";
    if (T.Unplaced)
      Out += ", " + std::to_string(T.Unplaced) +
             " no longer placed: back to the plain call";
    Out += ")";
    if (T.ToHeap)
      Out += ", " + count(T.ToHeap, "hbw_* call", "hbw_* calls") +
             " moved to the ordinary heap";
    Out += ", " + count(T.Noted, "caller frame", "caller frames") + " noted";
    if (T.Reframed || T.Unnoted) {
      Out += " (";
      if (T.Reframed)
        Out += std::to_string(T.Reframed) + " moved";
      if (T.Reframed && T.Unnoted)
        Out += ", ";
      if (T.Unnoted)
        Out += std::to_string(T.Unnoted) + " no longer noted";
      Out += ")";
    }
    if (DispatchFrees)
      Out += ", " +
             count(T.Dispatch, "free/realloc call", "free/realloc calls") +
             " dispatched";
    Out += ", " + count(FilesChanged, "file", "files") + " changed";
    if (T.Broken)
      Out += "; " + count(T.Broken, "statement", "statements") +
             " broken at the column limit (" +
             (T.Broken == 1 ? "a #line after it" : "a #line after each") +
             " keeps the line numbers)";
    if (T.Joined)
      Out += "; " + count(T.Joined, "statement", "statements") +
             " an earlier run broke joined again";
  }
  unsigned Long = 0;
  for (const auto &[File, Lines] : LeftLong)
    Long += NotWritten.count(File) ? 0 : Lines.size();
  if (Long)
    Out += "; " + count(Long, "rewritten line", "rewritten lines") +
           " left over the column limit, where a break would move what plan "
           "keys name (-v names them)";
  std::map<std::string, std::set<std::string>> ByWhy;
  for (const auto &[File, Why] : NotWritten)
    ByWhy[Why].insert(File);
  for (const auto &[Why, Files] : ByWhy)
    Out += "; " + count(Files.size(), "file", "files") + " (" +
           fileNames(Files) + ") " + Why;
  if (!Conflicted.empty())
    Out += "; " + count(Conflicted.size(), "file", "files") + " (" +
           fileNames(Conflicted) + ") not rewritten: overlapping edits";
  if (!NotApplied.empty())
    Out += "; " + count(NotApplied.size(), "plan entry", "plan entries") +
           " not applied (see the warnings)";
  if (HeapUnmatched)
    Out += "; " +
           count(HeapUnmatched, "entry of the ordinary heap",
                 "entries of the ordinary heap") +
           " placed nothing (see the notes; their calls stay on the ordinary "
           "heap either way)";
  if (unsigned N = skippedCount())
    Out += "; " + count(N, "allocation call", "allocation calls") +
           " in inactive preprocessor branches not examined (-v names them)";
  return Out;
}

} // namespace hmplace
