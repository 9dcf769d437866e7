/* The CLI's subcommands: one line each, CMD(name, one-line summary).
 * Each is implemented in tools/cmd_<name>.c as int cmd_<name>(int argc, char **argv)
 * (argv[0] is the subcommand name).  Exit codes: 0 ok, 1 "found something bad"
 * (where the command defines it), 2 usage or I/O error. */
CMD(csum, "classify IPv4/TCP/UDP checksums in a capture; --fix completes them")
CMD(rss, "Toeplitz RSS: per-packet hash and queue, per-queue packet/flow spread")
CMD(gro, "GRO/LRO: coalesce a capture as NIC receive polls (Linux 6.18 rules)")
CMD(gso, "TSO/USO/UFO: segment the super-packets of a capture as Linux software GSO")
CMD(tunnel, "IP over UDP between two hosts through a TUN, with GSO/GRO and UDP offloads")
CMD(relay, "software NIC: forward between tun:/tap:/afpacket: ports with GRO/GSO between them")
