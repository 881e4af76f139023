package dev.seqvfs.tests.differential;

import static dev.seqvfs.protocol.Mode.R_OK;
import static dev.seqvfs.protocol.Mode.S_IFREG;
import static dev.seqvfs.protocol.Mode.W_OK;
import static dev.seqvfs.protocol.OpenFlags.AT_REMOVEDIR;
import static dev.seqvfs.protocol.OpenFlags.O_CREAT;
import static dev.seqvfs.protocol.OpenFlags.O_EXCL;
import static dev.seqvfs.protocol.OpenFlags.O_RDONLY;
import static dev.seqvfs.protocol.OpenFlags.O_RDWR;
import static dev.seqvfs.protocol.OpenFlags.O_WRONLY;
import static dev.seqvfs.protocol.OpenFlags.RENAME_NOREPLACE;
import static dev.seqvfs.tests.differential.Op.TIMES_NOW;
import static dev.seqvfs.tests.differential.Op.close;
import static dev.seqvfs.tests.differential.Op.faccessat;
import static dev.seqvfs.tests.differential.Op.fchmodat;
import static dev.seqvfs.tests.differential.Op.fchownat;
import static dev.seqvfs.tests.differential.Op.linkat;
import static dev.seqvfs.tests.differential.Op.mkdirat;
import static dev.seqvfs.tests.differential.Op.mknodat;
import static dev.seqvfs.tests.differential.Op.openat;
import static dev.seqvfs.tests.differential.Op.readlinkat;
import static dev.seqvfs.tests.differential.Op.renameat2;
import static dev.seqvfs.tests.differential.Op.symlinkat;
import static dev.seqvfs.tests.differential.Op.unlinkat;
import static dev.seqvfs.tests.differential.Op.utimensat;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Namespace calls that {@code /proc} refuses, against the host's {@code /proc} (as root, Linux
 * 6.18): each call is made relative to a descriptor on {@code /proc} ({@value VfsSide#PROC_FD},
 * which {@code hostops} opens before its chroot, and a SeqVFS task with procfs opens the same way),
 * and both answers must be equal. What they pin: a missing name in a procfs directory is {@code
 * ENOENT} for every create, since its {@code ->lookup} fails instead of giving a negative dentry
 * ({@code mkdir}, {@code mknod}, {@code symlink}, {@code link}, {@code open(O_CREAT)}, a rename's
 * target); an existing one is {@code EEXIST} for {@code mkdir} and {@code O_EXCL}; a removal or
 * rename of an existing entry passes {@code may_delete} and fails with {@code EPERM} (no {@code
 * ->unlink}, {@code ->rmdir}, {@code ->rename}), but {@code ENOTDIR} for {@code rmdir} of a file; a
 * mode change of a {@code /proc/<pid>} entry is {@code EPERM} ({@code proc_setattr}); {@code
 * /proc/mounts} is a symbolic link to {@code self/mounts}.
 *
 * <p>No call changes the host: every removal, rename and create fails there, and the one mode
 * change that succeeds sets {@code /proc/filesystems} to the mode it has ({@code 0444}).
 */
class ProcErrnoDifferentialTest {
    private static final int P = VfsSide.PROC_FD;

    @BeforeEach
    void host() {
        String why = HostKernel.unavailableReason();
        Assumptions.assumeTrue(why == null, why);
    }

    /** Makes each call on the host and on SeqVFS; every answer must be the host's. */
    private static void compare(Op... ops) {
        List<String> transcript = new ArrayList<>();
        List<String> mismatches = new ArrayList<>();
        try (HostSide host = new HostSide();
                VfsSide vfs = new VfsSide(true)) {
            for (Op op : ops) {
                String h = host.apply(op);
                String v = vfs.apply(op);
                String line = op + " -> host " + h + (h.equals(v) ? "" : ", vfs " + v);
                transcript.add(line);
                if (!h.equals(v)) {
                    mismatches.add(line);
                }
            }
        }
        assertEquals(List.of(), mismatches, String.join("\n", transcript));
    }

    @Test
    void createInProc_missingNameIsENOENT_existingNameIsEEXIST_likeTheHost() {
        compare(
                mkdirat(P, "x", 0755),
                mkdirat(P, "self", 0755),
                mkdirat(P, "filesystems", 0755),
                mkdirat(P, "self/x", 0755),
                mkdirat(P, "self/fd/x", 0755),
                mknodat(P, "n", S_IFREG | 0644),
                symlinkat("a", P, "zz"),
                symlinkat("a", P, "self/zz"),
                linkat(P, "filesystems", P, "zz", 0),
                openat(P, "y", O_CREAT | O_RDWR, 0644),
                openat(P, "self/y", O_CREAT | O_WRONLY, 0644),
                openat(P, "filesystems", O_CREAT | O_EXCL | O_RDWR, 0644),
                openat(P, "filesystems", O_CREAT | O_RDONLY, 0644),
                close(0));
    }

    @Test
    void removeOrRenameInProc_isEPERMAfterTheLookupAndTypeChecks_likeTheHost() {
        compare(
                unlinkat(P, "x", 0),
                unlinkat(P, "x", AT_REMOVEDIR),
                unlinkat(P, "filesystems", 0),
                unlinkat(P, "filesystems", AT_REMOVEDIR),
                unlinkat(P, "mounts", 0),
                unlinkat(P, "self", 0),
                unlinkat(P, "self/fd", 0),
                unlinkat(P, "self/fd", AT_REMOVEDIR),
                unlinkat(P, "self/mounts", 0),
                unlinkat(P, "self/mounts", AT_REMOVEDIR),
                unlinkat(P, "self/cwd", 0),
                renameat2(P, "nope", P, "zz", 0),
                renameat2(P, "filesystems", P, "zz", 0),
                renameat2(P, "filesystems", P, "mounts", 0),
                renameat2(P, "filesystems", P, "mounts", RENAME_NOREPLACE),
                renameat2(P, "self/fd", P, "self/fdinfo", 0),
                renameat2(P, "self/mounts", P, "self/zz", 0));
    }

    @Test
    void attributesAndLinksInProc_likeTheHost() {
        compare(
                readlinkat(P, "mounts"),
                fchmodat(P, "self/mounts", 0600, 0),
                fchmodat(P, "self/fd", 0700, 0),
                fchownat(P, "self/mounts", 0, 0, 0),
                fchmodat(P, "filesystems", 0444, 0),
                fchmodat(P, "self", 0555, 0),
                fchownat(P, "self", 0, 0, 0),
                utimensat(P, "self", TIMES_NOW, 0),
                faccessat(P, "self", W_OK, 0),
                faccessat(P, "self", R_OK, 0),
                faccessat(P, "filesystems", W_OK, 0),
                faccessat(P, "self/mounts", W_OK, 0));
    }
}
