/**
 * The FUSE front end: {@link dev.seqvfs.fuse.FuseMount} mounts a SeqVFS instance on the host, so
 * that unmodified programs (shells, compilers, {@code tar}, {@code git}, {@code dbench}, {@code
 * fio}) run on the engine. A front end is a client of the engine's public API ({@code
 * dev.seqvfs.engine}, {@code dev.seqvfs.protocol}) and nothing more. Two transports serve a mount,
 * both behind {@code FuseMount} and in no public signature: the front end's own implementation of
 * the FUSE kernel protocol on {@code /dev/fuse} ({@code KernelMount}, {@code KernelSession}, {@code
 * KernelFs}, {@code Nodes}; the default), and libfuse 2's path API through jnr-fuse ({@code
 * LibfuseMount}, {@code EngineFuseFs}, {@code FuseLoop}; {@code -o transport=libfuse2}).
 */
package dev.seqvfs.fuse;
