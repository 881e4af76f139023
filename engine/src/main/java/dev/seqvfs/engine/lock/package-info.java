/**
 * Advisory file locks: {@code flock(2)} locks owned by open file descriptions and POSIX record
 * locks ({@code fcntl(2)} {@code F_SETLK}/{@code F_SETLKW}/{@code F_GETLK}) owned by processes,
 * with conflict detection, waiting, and {@code EDEADLK} detection.
 */
package dev.seqvfs.engine.lock;
