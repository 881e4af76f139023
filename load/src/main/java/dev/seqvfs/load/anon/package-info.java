/**
 * The anonymous-inode workloads ({@code seqvfs load socket-close}, {@code pipe-close}) of seeds
 * 000, 002 and 003, with the old shared-pseudo-root layout and the host kernel as references.
 */
package dev.seqvfs.load.anon;
