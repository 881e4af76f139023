/**
 * The FUSE front end: {@link dev.seqvfs.fuse.FuseMount} mounts a SeqVFS instance on the host, so
 * that unmodified programs (shells, compilers, {@code tar}, {@code git}, {@code dbench}, {@code
 * fio}) run on the engine. A front end is a client of the engine's public API ({@code
 * dev.seqvfs.engine}, {@code dev.seqvfs.protocol}) and nothing more; the binding (jnr-fuse over
 * libfuse 2) is behind {@code FuseMount} and appears in no public signature.
 */
package dev.seqvfs.fuse;
