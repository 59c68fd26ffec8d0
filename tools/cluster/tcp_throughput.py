#!/usr/bin/env python3
"""One TCP stream between two namespace hosts: what the kernel's stack on this machine's cores
carries, the ceiling under any MPI's TCP transport on the cluster.
  tcp_throughput.py serve PORT          (run on the receiving host; prints nothing)
  tcp_throughput.py send HOST PORT MiB  (prints Gbit/s)"""
import socket
import sys
import time


def serve(port):
    with socket.create_server(("0.0.0.0", port)) as srv:
        conn, _ = srv.accept()
        with conn:
            while conn.recv(1 << 20):
                pass


def send(host, port, mib):
    block = b"\0" * (1 << 20)
    for _ in range(50):  # the server may still be starting
        try:
            sock = socket.create_connection((host, port))
            break
        except ConnectionRefusedError:
            time.sleep(0.1)
    else:
        sys.exit("tcp_throughput: cannot connect to %s:%d" % (host, port))
    with sock:
        t0 = time.perf_counter()
        for _ in range(mib):
            sock.sendall(block)
        sock.shutdown(socket.SHUT_WR)
        sock.recv(1)  # returns once the server has read everything and closed
        dt = time.perf_counter() - t0
    print("%.2f Gbit/s (%d MiB in %.2f s, one stream)" % (mib * 8 * 1.048576e-3 / dt, mib, dt))


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(int(sys.argv[2]))
    else:
        send(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
