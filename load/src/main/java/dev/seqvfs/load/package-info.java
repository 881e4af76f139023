/**
 * Load tests that drive an embedded SeqVFS through its asynchronous API from Pekko actors
 * (no client thread blocks), and the same workloads against the host for comparison.
 */
package dev.seqvfs.load;
