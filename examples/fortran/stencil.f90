! stencil.f90 - a 1-D Jacobi stencil in Fortran, placed through HmPlace.so
! (flang-new-19 -fpass-plugin=HmPlace.so, linked with -lhmplace-fortran
! -lhmplace): the two grids the sweeps stream through go to HBM, the
! boundary table and the check's small temporaries (each sweep) stay in DDR.
! Self-checking: a linear profile is a fixed point, so the grid is unchanged.
!
!   stencil [N] [SWEEPS]
program stencil
  implicit none
  real(8), allocatable :: u(:), v(:)
  integer, allocatable :: boundary(:)
  integer :: n, sweeps, i, s, j
  character(len=32) :: arg
  real(8) :: err

  n = 1000000
  sweeps = 20
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) sweeps
  end if
  allocate(u(n), v(n))
  allocate(boundary(2))
  boundary = [1, n]
  do i = 1, n
    u(i) = real(i, 8)
  end do
  v = u
  err = 0
  do s = 1, sweeps
    do i = 2, n - 1
      v(i) = 0.5d0 * (u(i - 1) + u(i + 1))
    end do
    u(2:n-1) = v(2:n-1)
    ! the largest change in each block of 32 points: a small temporary each
    do i = 1, n - 31, 32
      err = max(err, maxval(abs(u(i:i+31) - [(real(j, 8), j = i, i + 31)])))
    end do
  end do
  do i = boundary(1), boundary(2)
    err = max(err, abs(u(i) - real(i, 8)))
  end do
  if (err > 1d-9) then
    print '(a,es10.3)', 'stencil: wrong result, error ', err
    stop 1
  end if
  print '(a,i0,a,i0,a)', 'stencil verified (n=', n, ', ', sweeps, ' sweeps)'
  deallocate(u, v, boundary)
end program stencil
