package dev.seqvfs.tests.differential;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.seqvfs.protocol.MountFlags;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code getcwd(2)} of a working directory that the root can no longer reach, against the host
 * (Linux 6.18, {@code sys_getcwd} in {@code fs/d_path.c}): a tmpfs mounted at {@code /m} holding
 * {@code d}, the task's working directory inside it, then {@code umount2("/m", MNT_DETACH)}. The
 * system call then answers the path from the root of the detached mount, prefixed with {@code
 * "(unreachable)"}, never the path the directory had; {@code ..} stops at the detached mount's
 * root. Fixture:
 *
 * <pre>
 * /            the sandbox's own tmpfs
 * └── m        mount point of a second tmpfs (detached lazily during the test)
 *     └── d/e
 * </pre>
 */
class UnreachableCwdDifferentialTest {
    @BeforeEach
    void host() {
        String why = HostTmpfs.unavailableReason();
        Assumptions.assumeTrue(why == null, why);
    }

    @Test
    void getcwd_inLazilyDetachedMount_isUnreachablePrefixedPathWithinIt_likeTheHost() {
        try (DataSide.Host host = new DataSide.Host("size=1m");
                DataSide.Vfs vfs = new DataSide.Vfs("size=1m", false)) {
            DataDiff d = new DataDiff(host, vfs);
            d.step("mkdir(m)", s -> s.mkdir("m", 0755));
            d.step("mount(m)", s -> s.mount("none", "m", "tmpfs", 0, "size=64k"));
            d.step("mkdir(m/d)", s -> s.mkdir("m/d", 0755));
            d.step("mkdir(m/d/e)", s -> s.mkdir("m/d/e", 0755));
            d.step("chdir(m/d/e)", s -> s.chdir("m/d/e"));
            d.step("getcwd", DataSide::getcwd);
            d.step("umount(/m, MNT_DETACH)", s -> s.umount("/m", MountFlags.MNT_DETACH));
            d.step("getcwd", DataSide::getcwd);
            d.step("chdir(..)", s -> s.chdir(".."));
            d.step("getcwd", DataSide::getcwd);
            d.step("chdir(../..)", s -> s.chdir("../.."));
            d.step("getcwd", DataSide::getcwd);
            d.step("chdir(d/./e/..)", s -> s.chdir("d/./e/.."));
            d.step("getcwd", DataSide::getcwd);
            d.step("chdir(/)", s -> s.chdir("/"));
            d.step("getcwd", DataSide::getcwd);
            assertEquals(List.of(), d.mismatches(), d.transcript());
        }
    }
}
