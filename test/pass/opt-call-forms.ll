; Every allocation call form the pass knows, as opt sees it: planned calls
; become the runtime's placed entry points with the kind (enum hmplace_kind:
; 3 = HBW, 0 = REGULAR, 11 = DAX_KMEM) inserted; invokes stay invokes; a site
; planned to posix, an unplanned site and free are left alone.
; RUN: rm -rf %t && mkdir -p %t && cp %s %t/forms.ll
; RUN: printf 'version: 1\nsites:\n' > %t/plan.yaml
; RUN: printf '  - {site: forms.c:%%s, kind: hbm}\n' 10 11 12 13 14 15 16 17 18 20 21 22 23 24 25 26 27 28 >> %t/plan.yaml
; RUN: printf '  - {site: forms.c:30, kind: ddr}\n  - {site: forms.c:31, kind: posix}\n' >> %t/plan.yaml
; RUN: env HMPLACE_PLAN=%t/plan.yaml %opt -load-pass-plugin=%hmplace_plugin -passes=hm-place -S %t/forms.ll -o - | FileCheck %s

define void @f(i64 %n, ptr %s, ptr %out) personality ptr @__gxx_personality_v0 {
entry:
  ; CHECK: call ptr @hmplace_malloc(i32 3, i64 %n), !dbg
  %a = call ptr @malloc(i64 %n), !dbg !10
  ; CHECK: call ptr @hmplace_calloc(i32 3, i64 %n, i64 8), !dbg
  %b = call ptr @calloc(i64 %n, i64 8), !dbg !11
  ; CHECK: call ptr @hmplace_realloc_to(i32 3, ptr %a, i64 %n), !dbg
  %c = call ptr @realloc(ptr %a, i64 %n), !dbg !12
  ; CHECK: call ptr @hmplace_aligned_alloc(i32 3, i64 64, i64 %n), !dbg
  %d = call ptr @aligned_alloc(i64 64, i64 %n), !dbg !13
  ; CHECK: call i32 @hmplace_posix_memalign(i32 3, ptr %out, i64 64, i64 %n), !dbg
  %e = call i32 @posix_memalign(ptr %out, i64 64, i64 %n), !dbg !14
  ; CHECK: call ptr @hmplace_memalign(i32 3, i64 4096, i64 %n), !dbg
  %g = call ptr @memalign(i64 4096, i64 %n), !dbg !15
  ; CHECK: call ptr @hmplace_valloc(i32 3, i64 %n), !dbg
  %h = call ptr @valloc(i64 %n), !dbg !16
  ; CHECK: call ptr @hmplace_strdup(i32 3, ptr %s), !dbg
  %i = call ptr @strdup(ptr %s), !dbg !17
  ; CHECK: call ptr @hmplace_strndup(i32 3, ptr %s, i64 4), !dbg
  %j = call ptr @strndup(ptr %s, i64 4), !dbg !18
  ; CHECK: call noalias nonnull ptr @_Znwm12hmplace_kind(i64 %n, i32 3), !dbg
  %k = call noalias nonnull ptr @_Znwm(i64 %n) #0, !dbg !20
  ; CHECK: call ptr @_Znam12hmplace_kind(i64 %n, i32 3), !dbg
  %l = call ptr @_Znam(i64 %n), !dbg !21
  ; CHECK: call ptr @_Znwm12hmplace_kindRKSt9nothrow_t(i64 %n, i32 3, ptr @_ZSt7nothrow), !dbg
  %m = call ptr @_ZnwmRKSt9nothrow_t(i64 %n, ptr @_ZSt7nothrow), !dbg !22
  ; CHECK: call ptr @_Znam12hmplace_kindRKSt9nothrow_t(i64 %n, i32 3, ptr @_ZSt7nothrow), !dbg
  %o = call ptr @_ZnamRKSt9nothrow_t(i64 %n, ptr @_ZSt7nothrow), !dbg !23
  ; CHECK: call ptr @_ZnwmSt11align_val_t12hmplace_kind(i64 %n, i64 64, i32 3), !dbg
  %p = call ptr @_ZnwmSt11align_val_t(i64 %n, i64 64), !dbg !24
  ; CHECK: call ptr @_ZnamSt11align_val_t12hmplace_kind(i64 %n, i64 64, i32 3), !dbg
  %q = call ptr @_ZnamSt11align_val_t(i64 %n, i64 64), !dbg !25
  ; CHECK: call ptr @_ZnwmSt11align_val_t12hmplace_kindRKSt9nothrow_t(i64 %n, i64 64, i32 3, ptr @_ZSt7nothrow), !dbg
  %r = call ptr @_ZnwmSt11align_val_tRKSt9nothrow_t(i64 %n, i64 64, ptr @_ZSt7nothrow), !dbg !26
  ; CHECK: call ptr @_ZnamSt11align_val_t12hmplace_kindRKSt9nothrow_t(i64 %n, i64 64, i32 3, ptr @_ZSt7nothrow), !dbg
  %t = call ptr @_ZnamSt11align_val_tRKSt9nothrow_t(i64 %n, i64 64, ptr @_ZSt7nothrow), !dbg !27
  ; CHECK: invoke ptr @_Znwm12hmplace_kind(i64 %n, i32 3)
  ; CHECK-NEXT: to label %ok unwind label %lpad, !dbg
  %u = invoke ptr @_Znwm(i64 %n) to label %ok unwind label %lpad, !dbg !28
ok:
  ; CHECK: call ptr @hmplace_malloc(i32 0, i64 %n), !dbg
  %v = call ptr @malloc(i64 %n), !dbg !30
  ; CHECK: call ptr @malloc(i64 %n), !dbg
  %w = call ptr @malloc(i64 %n), !dbg !31
  ; CHECK: call ptr @malloc(i64 %n), !dbg
  %x = call ptr @malloc(i64 %n), !dbg !32
  ; CHECK: call void @free(ptr %x)
  call void @free(ptr %x), !dbg !32
  ret void
lpad:
  %lp = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %lp
}

declare ptr @malloc(i64)
declare ptr @calloc(i64, i64)
declare ptr @realloc(ptr, i64)
declare ptr @aligned_alloc(i64, i64)
declare i32 @posix_memalign(ptr, i64, i64)
declare ptr @memalign(i64, i64)
declare ptr @valloc(i64)
declare ptr @strdup(ptr)
declare ptr @strndup(ptr, i64)
declare void @free(ptr)
declare ptr @_Znwm(i64)
declare ptr @_Znam(i64)
declare ptr @_ZnwmRKSt9nothrow_t(i64, ptr)
declare ptr @_ZnamRKSt9nothrow_t(i64, ptr)
declare ptr @_ZnwmSt11align_val_t(i64, i64)
declare ptr @_ZnamSt11align_val_t(i64, i64)
declare ptr @_ZnwmSt11align_val_tRKSt9nothrow_t(i64, i64, ptr)
declare ptr @_ZnamSt11align_val_tRKSt9nothrow_t(i64, i64, ptr)
declare i32 @__gxx_personality_v0(...)
@_ZSt7nothrow = external global i8

attributes #0 = { builtin allocsize(0) }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3}
!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "forms.c", directory: "/src")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = !{i32 7, !"Dwarf Version", i32 5}
!5 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 9, unit: !0, spFlags: DISPFlagDefinition)
!10 = !DILocation(line: 10, column: 3, scope: !5)
!11 = !DILocation(line: 11, column: 3, scope: !5)
!12 = !DILocation(line: 12, column: 3, scope: !5)
!13 = !DILocation(line: 13, column: 3, scope: !5)
!14 = !DILocation(line: 14, column: 3, scope: !5)
!15 = !DILocation(line: 15, column: 3, scope: !5)
!16 = !DILocation(line: 16, column: 3, scope: !5)
!17 = !DILocation(line: 17, column: 3, scope: !5)
!18 = !DILocation(line: 18, column: 3, scope: !5)
!20 = !DILocation(line: 20, column: 3, scope: !5)
!21 = !DILocation(line: 21, column: 3, scope: !5)
!22 = !DILocation(line: 22, column: 3, scope: !5)
!23 = !DILocation(line: 23, column: 3, scope: !5)
!24 = !DILocation(line: 24, column: 3, scope: !5)
!25 = !DILocation(line: 25, column: 3, scope: !5)
!26 = !DILocation(line: 26, column: 3, scope: !5)
!27 = !DILocation(line: 27, column: 3, scope: !5)
!28 = !DILocation(line: 28, column: 3, scope: !5)
!30 = !DILocation(line: 30, column: 3, scope: !5)
!31 = !DILocation(line: 31, column: 3, scope: !5)
!32 = !DILocation(line: 32, column: 3, scope: !5)
