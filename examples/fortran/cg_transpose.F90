! A Fortran mini-application with the communication of a plane-wave or spectral code: each
! iteration is a conjugate-gradient step on a distributed 1-D Poisson problem (a halo exchange
! by MPI_Sendrecv, then MPI_Allreduce on one or two doubles for the dot products), and every
! `transpose_every` iterations a distributed transpose of a complex field (MPI_Alltoall of
! `block` complex numbers per rank pair), as a 3-D FFT does between its 1-D passes.
! It prints the residual and a checksum of the field (the same whichever library runs the
! collectives) and, with --time, the seconds spent in each kind of call on the slowest rank.
!   cg_transpose [--local N] [--iters K] [--block B] [--transpose-every T] [--time]
! Plain `use mpi`: runs unmodified under weftrun, which serves its collectives.
program cg_transpose
  use mpi
  implicit none
  integer :: nlocal = 20000, iters = 200, block = 16384, every = 10
  logical :: timing = .false.
  integer :: ierr, rank, p, it, i, left, right, nt
  real(8), allocatable :: x(:), r(:), d(:), q(:)
  complex(8), allocatable :: field(:), turned(:)
  real(8) :: rr, rr_new, dq, alpha, beta, t0, t_red, t_a2a, t_halo, t_all, times(4), worst(4)
  real(8) :: check, gcheck
  character(len=64) :: arg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, p, ierr)
  i = 1
  do while (i <= command_argument_count())
    call get_command_argument(i, arg)
    select case (trim(arg))
    case ('--local'); i = i + 1; call get_command_argument(i, arg); read (arg, *) nlocal
    case ('--iters'); i = i + 1; call get_command_argument(i, arg); read (arg, *) iters
    case ('--block'); i = i + 1; call get_command_argument(i, arg); read (arg, *) block
    case ('--transpose-every'); i = i + 1; call get_command_argument(i, arg); read (arg, *) every
    case ('--time'); timing = .true.
    end select
    i = i + 1
  end do
  left = merge(MPI_PROC_NULL, rank - 1, rank == 0)
  right = merge(MPI_PROC_NULL, rank + 1, rank == p - 1)
  allocate(x(0:nlocal + 1), r(nlocal), d(0:nlocal + 1), q(nlocal))
  allocate(field(block * p), turned(block * p))
  field = [(cmplx(rank + mod(i, 13), mod(i, 7) - rank, kind=8), i = 1, block * p)]

  ! A x = b with A the 1-D Laplacian (2 on the diagonal, -1 beside it) and b = 1.
  x = 0
  d = 0
  r = 1
  d(1:nlocal) = r
  call MPI_Allreduce(dot(r, r), rr, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  t_red = 0; t_a2a = 0; t_halo = 0; nt = 0
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  t_all = MPI_Wtime()
  do it = 1, iters
    t0 = MPI_Wtime()
    call MPI_Sendrecv(d(1), 1, MPI_DOUBLE_PRECISION, left, 1, d(nlocal + 1), 1, &
                      MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Sendrecv(d(nlocal), 1, MPI_DOUBLE_PRECISION, right, 2, d(0), 1, &
                      MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    t_halo = t_halo + (MPI_Wtime() - t0)
    q = 2 * d(1:nlocal) - d(0:nlocal - 1) - d(2:nlocal + 1)
    t0 = MPI_Wtime()
    call MPI_Allreduce(dot(d(1:nlocal), q), dq, 1, MPI_DOUBLE_PRECISION, MPI_SUM, &
                       MPI_COMM_WORLD, ierr)
    t_red = t_red + (MPI_Wtime() - t0)
    alpha = rr / dq
    x(1:nlocal) = x(1:nlocal) + alpha * d(1:nlocal)
    r = r - alpha * q
    t0 = MPI_Wtime()
    call MPI_Allreduce(dot(r, r), rr_new, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    t_red = t_red + (MPI_Wtime() - t0)
    beta = rr_new / rr
    rr = rr_new
    d(1:nlocal) = r + beta * d(1:nlocal)
    if (mod(it, every) == 0) then
      t0 = MPI_Wtime()
      call MPI_Alltoall(field, block, MPI_DOUBLE_COMPLEX, turned, block, MPI_DOUBLE_COMPLEX, &
                        MPI_COMM_WORLD, ierr)
      t_a2a = t_a2a + (MPI_Wtime() - t0)
      nt = nt + 1
      field = turned * (0.5d0, 0.5d0)
    end if
  end do
  t_all = MPI_Wtime() - t_all

  check = sum(abs(field))
  call MPI_Reduce(check, gcheck, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  times = [t_red, t_a2a, t_halo, t_all]
  call MPI_Reduce(times, worst, 4, MPI_DOUBLE_PRECISION, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    print '(a, i0, a, i0, a, i0, a, i0)', 'ranks ', p, ', unknowns ', nlocal * p, &
          ', iterations ', iters, ', transposes ', nt
    print '(a, es10.3)', 'residual norm ', sqrt(rr)
    print '(a, es14.7)', 'field checksum ', gcheck
    if (timing) then
      print '(a, f10.1, a, f10.1, a, f10.1, a, f10.1)', 'time_us allreduce_per_call ', &
            worst(1) / (2 * iters) * 1d6, ' alltoall_per_call ', worst(2) / max(nt, 1) * 1d6, &
            ' halo_per_iter ', worst(3) / iters * 1d6, ' total_per_iter ', worst(4) / iters * 1d6
    end if
  end if
  call MPI_Finalize(ierr)

contains

  real(8) function dot(a, b)
    real(8), intent(in) :: a(:), b(:)
    dot = sum(a * b)
  end function

end program
