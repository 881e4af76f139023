package dev.seqvfs.tests.differential;

import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AddLifecycleHook;

/**
 * Specifies that SeqVFS's namespace calls behave as the host's Linux kernel on tmpfs: random
 * sequences of calls (mkdir, mknod, symlink, link/linkat, unlink/unlinkat/rmdir, rename/renameat2,
 * readlink, stat/lstat/fstatat, open/openat + close, fstat, getdents, chmod/fchmodat,
 * chown/lchown/fchownat, utimensat, access/faccessat, chdir/fchdir, getcwd, umask) run against a
 * fresh SeqVFS instance and against a fresh directory on {@code /dev/shm} that a child process has
 * made its root, both as root; every call's result (value or errno, exactly) must be equal, then
 * the final trees.
 *
 * <p>The reference is the kernel, as the section-2 man pages describe it ({@code
 * path_resolution(7)}, {@code open(2)}, {@code rename(2)}, ...). A failure prints the shrunk
 * sequence as Java source; keep it in {@link DifferentialRegressionTest}.
 *
 * <p>Two properties: all calls over names {@code a b c} (400 tries), and rename-heavy sequences
 * over names {@code a b} (200 tries); about 30 s together on 2 cores. {@code -Dseqvfs.diff.tries=N}
 * sets the tries of both.
 */
@AddLifecycleHook(HostKernelHooks.class)
class DifferentialPropertyTest {

    @Property(tries = 400, edgeCases = EdgeCasesMode.NONE)
    void namespaceCalls_randomSequences_matchHostKernel(@ForAll("sequences") List<Op> ops) {
        Differential.check(ops);
    }

    @Property(tries = 200, edgeCases = EdgeCasesMode.NONE)
    void renames_randomSequencesOverTwoNames_matchHostKernel(
            @ForAll("renameSequences") List<Op> ops) {
        Differential.check(ops);
    }

    @Provide
    Arbitrary<List<Op>> renameSequences() {
        return OpArbitraries.renameSequences(20, 60);
    }

    @Provide
    Arbitrary<List<Op>> sequences() {
        return OpArbitraries.sequences(20, 60);
    }
}
