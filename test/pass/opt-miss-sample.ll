; The profiled build's miss sampling (HmPlace.so profile mode, MissIR.h), as
; opt sees it: before an access, the 128-byte unit's address (addr >> 7, its
; low 32 bits) times 0x9E3779B9 is compared with 2^25 (one unit in 128) and
; the sampler called under it, with bit 0 of its flags a write and bits 1..8
; the other accesses the check stands for. One check stands for accesses of
; a block through one base within a line (a stencil's a[i-1], a[i], a[i+1]:
; the lowest and highest are checked where the base does not sweep), for
; the two ends of a sweep's accesses (only the lowest: the next iterations'
; reach the rest), and for a loop-invariant address (a struct's field the
; loop reads); a small stack slot is not sampled, a large one is; memset and
; memcpy sample their ranges; a gather each lane. The module is marked, once,
; with the rate; HMPLACE_MISS_RATE=0 calls for every access, and a bad rate
; is an error.
; RUN: %opt -load-pass-plugin=%hmplace_plugin -passes=hm-miss-sample -S %s -o - | FileCheck %s
; RUN: env HMPLACE_MISS_RATE=0 %opt -load-pass-plugin=%hmplace_plugin -passes=hm-miss-sample -S %s -o - | FileCheck %s --check-prefix=ALL
; RUN: not env HMPLACE_MISS_RATE=40 %opt -load-pass-plugin=%hmplace_plugin -passes=hm-miss-sample -S %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
; RUN: %opt -load-pass-plugin=%hmplace_plugin -passes=hm-miss-sample -S %s -o - | grep -c 'call preserve_mostcc' > %t.once
; RUN: %opt -load-pass-plugin=%hmplace_plugin -passes=hm-miss-sample,hm-miss-sample -S %s -o - | grep -c 'call preserve_mostcc' > %t.twice
; RUN: diff %t.once %t.twice
; BAD: error: HmPlace: HMPLACE_MISS_RATE='40': expected 0 to 16 (one unit in 2^N sampled)
; CHECK: @__hmplace_misses_sampled = linkonce_odr constant i8 7
; ALL: @__hmplace_misses_sampled = linkonce_odr constant i8 0

; A stencil: a[i-1], a[i], a[i+1] through one base, and a store to b[i].
; CHECK-LABEL: define double @stencil(
define double @stencil(ptr %a, ptr %b, i64 %i) {
entry:
  %p = getelementptr double, ptr %a, i64 %i
  %pm = getelementptr i8, ptr %p, i64 -8
  %pp = getelementptr i8, ptr %p, i64 8
  ; CHECK:      %[[ADDR:.*]] = ptrtoint ptr %pm to i64
  ; CHECK-NEXT: %[[U:.*]] = lshr i64 %[[ADDR]], 7
  ; CHECK-NEXT: %[[T:.*]] = trunc i64 %[[U]] to i32
  ; CHECK-NEXT: %[[H:.*]] = mul i32 %[[T]], -1640531527
  ; CHECK-NEXT: %[[IN:.*]] = icmp ult i32 %[[H]], 33554432
  ; CHECK-NEXT: br i1 %[[IN]], label {{.*}}, !prof
  ; CHECK:      call preserve_mostcc void @__hmplace_miss_v1(i64 %[[ADDR]], i64 2)
  ; ALL-LABEL:  define double @stencil(
  ; ALL:        %[[ADDR:.*]] = ptrtoint ptr %pm to i64
  ; ALL-NOT:    icmp
  ; ALL:        call preserve_mostcc void @__hmplace_miss_v1(i64 %[[ADDR]], i64 2)
  %x = load double, ptr %pm
  ; CHECK-NOT: call {{.*}}@__hmplace_miss_v1
  %y = load double, ptr %p
  ; CHECK:     ptrtoint ptr %pp to i64
  ; CHECK:     call preserve_mostcc void @__hmplace_miss_v1(i64 %{{.*}}, i64 0)
  %z = load double, ptr %pp
  %s = fadd double %x, %y
  %t = fadd double %s, %z
  %q = getelementptr double, ptr %b, i64 %i
  ; CHECK:     ptrtoint ptr %q to i64
  ; CHECK:     call preserve_mostcc void @__hmplace_miss_v1(i64 %{{.*}}, i64 1)
  store double %t, ptr %q
  ; CHECK-NOT: call {{.*}}@__hmplace_miss_v1
  ; CHECK:     ret double
  ret double %t
}

; A sweep with a struct's field read each iteration: the field's address
; does not change (stood for by the array's check), the array's two loads
; at i and i+1 are one check at the lower (the base moves 16 bytes an
; iteration, so the next iterations' lower loads reach the upper's lines).
; Where the base is reloaded each iteration (no sweep to see), both ends
; are checked.
%struct.grid = type { ptr, i64 }
; CHECK-LABEL: define double @sweep(
define double @sweep(ptr %g, i64 %n) {
entry:
  %data = load ptr, ptr %g
  %scale = getelementptr %struct.grid, ptr %g, i64 0, i32 1
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %sum2, %loop ]
  ; CHECK:     loop:
  ; CHECK-NOT: call {{.*}}@__hmplace_miss_v1
  %k = load i64, ptr %scale
  %e = getelementptr double, ptr %data, i64 %i
  %e1 = getelementptr i8, ptr %e, i64 8
  ; CHECK:     ptrtoint ptr %e to i64
  ; CHECK:     call preserve_mostcc void @__hmplace_miss_v1(i64 %{{.*}}, i64 4)
  %v = load double, ptr %e
  ; CHECK-NOT: call {{.*}}@__hmplace_miss_v1
  ; CHECK:     br i1 %done
  %w = load double, ptr %e1
  %kf = sitofp i64 %k to double
  %sum = fadd double %acc, %v
  %sum1 = fadd double %sum, %w
  %sum2 = fmul double %sum1, %kf
  %next = add i64 %i, 2
  %done = icmp uge i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret double %sum2
}

; CHECK-LABEL: define double @reloaded(
define double @reloaded(ptr %g, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %sum2, %loop ]
  %data = load ptr, ptr %g
  %e = getelementptr double, ptr %data, i64 %i
  %e1 = getelementptr i8, ptr %e, i64 8
  ; CHECK:     ptrtoint ptr %e to i64
  ; CHECK:     call preserve_mostcc void @__hmplace_miss_v1(i64 %{{.*}}, i64 2)
  %v = load double, ptr %e
  ; CHECK:     ptrtoint ptr %e1 to i64
  ; CHECK:     call preserve_mostcc void @__hmplace_miss_v1(i64 %{{.*}}, i64 0)
  %w = load double, ptr %e1
  %sum = fadd double %acc, %v
  %sum2 = fadd double %sum, %w
  %next = add i64 %i, 2
  %done = icmp uge i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret double %sum2
}

; Stack slots: a small one (a scalar spilled) is not sampled, a large one
; (a buffer) is.
; CHECK-LABEL: define void @stack(
define void @stack(i64 %k) {
entry:
  %small = alloca [16 x double]
  %large = alloca [8192 x double]
  %s = getelementptr double, ptr %small, i64 %k
  %l = getelementptr double, ptr %large, i64 %k
  ; CHECK-NOT: ptrtoint ptr %s
  store double 1.0, ptr %s
  ; CHECK:     ptrtoint ptr %l to i64
  ; CHECK:     call preserve_mostcc void @__hmplace_miss_v1(i64 %{{.*}}, i64 1)
  store double 2.0, ptr %l
  call void @use(ptr %small, ptr %large)
  ret void
}

; memset and memcpy: their ranges; a gather: each lane.
; CHECK-LABEL: define <2 x double> @ranges(
define <2 x double> @ranges(ptr %d, ptr %s, i64 %n, <2 x ptr> %ps) {
entry:
  ; CHECK:      %[[D:.*]] = ptrtoint ptr %d to i64
  ; CHECK-NEXT: call void @__hmplace_miss_range_v1(i64 %[[D]], i64 %n, i64 1)
  ; CHECK-NEXT: call void @llvm.memset
  call void @llvm.memset.p0.i64(ptr %d, i8 0, i64 %n, i1 false)
  ; CHECK:      %[[S:.*]] = ptrtoint ptr %s to i64
  ; CHECK-NEXT: call void @__hmplace_miss_range_v1(i64 %[[S]], i64 64, i64 0)
  ; CHECK:      call void @__hmplace_miss_range_v1(i64 %{{.*}}, i64 64, i64 1)
  ; CHECK-NEXT: call void @llvm.memcpy
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 64, i1 false)
  ; CHECK:     extractelement <2 x ptr> %ps, i64 0
  ; CHECK:     extractelement <2 x ptr> %ps, i64 1
  ; CHECK:     call preserve_mostcc void @__hmplace_miss_v1(
  ; CHECK:     call preserve_mostcc void @__hmplace_miss_v1(
  ; CHECK:     call <2 x double> @llvm.masked.gather
  %g = call <2 x double> @llvm.masked.gather.v2f64.v2p0(<2 x ptr> %ps, i32 8, <2 x i1> <i1 true, i1 true>, <2 x double> zeroinitializer)
  ret <2 x double> %g
}

declare void @use(ptr, ptr)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare <2 x double> @llvm.masked.gather.v2f64.v2p0(<2 x ptr>, i32, <2 x i1>, <2 x double>)
