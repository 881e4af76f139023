/**
 * JMH benchmarks of SeqVFS, each run on SeqVFS, Jimfs and the host kernel's tmpfs ({@code /dev/shm}
 * through {@code java.nio}) in the same JMH run, and reported as ratios ({@link
 * dev.seqvfs.bench.BenchMain}). The targets share one interface, {@link dev.seqvfs.bench.FsTarget};
 * a JMH fork measures one target, so its calls are monomorphic. Run with {@code bench/run} (see its
 * {@code --help}); {@code mvn verify} only compiles and packages them.
 */
package dev.seqvfs.bench;
