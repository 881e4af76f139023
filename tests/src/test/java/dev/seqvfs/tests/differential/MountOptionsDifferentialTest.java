package dev.seqvfs.tests.differential;

import static dev.seqvfs.protocol.OpenFlags.O_CREAT;
import static dev.seqvfs.protocol.OpenFlags.O_RDONLY;
import static dev.seqvfs.protocol.OpenFlags.O_WRONLY;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.seqvfs.protocol.MountFlags;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * tmpfs mount options against the host: {@code mount(2)} of a tmpfs at {@code /m} inside the
 * sandbox (on the host, by {@code hostops} chrooted into a tmpfs of its own under {@code /dev/shm};
 * in SeqVFS, in an instance with procfs), then {@code statfs}, writes, {@code MS_REMOUNT} with new
 * options, and the line {@code /proc/self/mounts} shows for it (less the mount point), each
 * compared. What they pin (Linux 6.18, {@code mm/shmem.c}, {@code fs/proc_namespace.c}):
 *
 * <ul>
 *   <li>{@code size=} is {@code memparse}d and rounded up to whole pages ({@code size=1k} is one
 *       writable page, {@code size=5000} two); {@code nr_inodes=1k} is 1024;
 *   <li>a remount applies new {@code size}/{@code nr_inodes} ({@code shmem_reconfigure}), both or
 *       neither, {@code EINVAL} when a new limit is below what is in use or limits an unlimited
 *       size; {@code mode}, {@code uid} and {@code gid} are accepted and ignored;
 *   <li>the mounts line: source, type, {@code ro}/{@code rw}, the mount flags ({@code nosuid},
 *       {@code nodev}, {@code noexec}, {@code noatime}, {@code nodiratime}, {@code relatime}), then
 *       the non-default options ({@code size} in KiB, {@code mode} in octal); a remount replaces
 *       the mount flags but keeps the atime mode unless it names one.
 * </ul>
 *
 * Limits are always given explicitly (the defaults are half the RAM on the host and half the heap
 * in SeqVFS). Skipped where the host cannot take part (not root, no gcc, no mount(8)); each mount
 * is unmounted at the end of its script.
 */
class MountOptionsDifferentialTest {
    @BeforeEach
    void host() {
        String why = HostTmpfs.unavailableReason();
        Assumptions.assumeTrue(why == null, why);
    }

    /** Runs {@code script} on a fresh host sandbox and a fresh SeqVFS with /proc, then compares. */
    private static void compare(String name, Consumer<DataDiff> script) {
        try (DataSide.Host host = new DataSide.Host("size=1m");
                DataSide.Vfs vfs = new DataSide.Vfs("size=1m", true)) {
            DataDiff d = new DataDiff(host, vfs);
            d.step("mkdir(m)", s -> s.mkdir("m", 0755));
            try {
                script.accept(d);
            } finally {
                d.step("umount(m, MNT_DETACH)", s -> s.umount("m", MountFlags.MNT_DETACH));
            }
            System.out.println(name + ":\n" + d.transcript());
            assertEquals(List.of(), d.mismatches(), name + ":\n" + d.transcript());
        }
    }

    /** Mounts a tmpfs at /m, then shows what statfs and /proc/self/mounts say of it. */
    private static void mount(DataDiff d, String source, long flags, String data) {
        d.step(
                "mount(" + source + ", m, tmpfs, " + flags + ", " + data + ")",
                s -> s.mount(source, "m", "tmpfs", flags, data));
        show(d);
    }

    private static void remount(DataDiff d, long flags, String data) {
        d.step(
                "remount(m, " + flags + ", " + data + ")",
                s -> s.mount(null, "m", null, MountFlags.MS_REMOUNT | flags, data));
        show(d);
    }

    /** statfs counts (through a descriptor of /m, closed again) and the mounts line. */
    private static void show(DataDiff d) {
        d.step(
                "  statfs(m)",
                s -> {
                    String fd = s.open("m", O_RDONLY, 0);
                    if (!Character.isDigit(fd.charAt(0))) {
                        return fd;
                    }
                    String r = s.statfsCounts(Integer.parseInt(fd));
                    s.close(Integer.parseInt(fd));
                    return r;
                });
        d.step("  /proc/self/mounts(m)", s -> s.mountsLine("m"));
    }

    /** Creates {@code m/<name>} and writes {@code len} bytes to it; answers the write's count. */
    private static void writeFile(DataDiff d, String name, int len) {
        d.step(
                "write(m/" + name + ", " + len + ")",
                s -> {
                    String fd = s.open("m/" + name, O_CREAT | O_WRONLY, 0644);
                    if (!Character.isDigit(fd.charAt(0))) {
                        return fd;
                    }
                    int n = Integer.parseInt(fd);
                    String r = len == 0 ? "0" : s.write(n, len);
                    s.close(n);
                    return r;
                });
    }

    /** A remount compared by its answer alone. */
    private static void quietly(DataDiff d, String what, String data) {
        d.step(what, s -> s.mount(null, "m", null, MountFlags.MS_REMOUNT, data));
    }

    private static void umount(DataDiff d) {
        d.step("umount(m)", s -> s.umount("m", 0));
    }

    @Test
    void remount_newSizeAndInodeLimits_areAppliedLikeTheHost_andRefusedBelowUse() {
        compare(
                "remount limits",
                d -> {
                    mount(d, "none", 0, "size=64k,nr_inodes=5");
                    remount(d, 0, "size=1m,nr_inodes=1000");
                    remount(d, 0, "mode=0755,uid=7,gid=8"); // accepted, ignored
                    writeFile(d, "a", 0);
                    writeFile(d, "b", 0);
                    writeFile(d, "c", 20000); // 5 pages
                    remount(d, 0, "nr_inodes=3"); // 4 in use: EINVAL
                    remount(d, 0, "nr_inodes=4"); // exactly the use
                    writeFile(d, "d", 0); // ENOSPC
                    remount(d, 0, "nr_inodes=8,size=8k"); // size below use: neither applies
                    remount(d, 0, "size=20k"); // exactly the use
                    writeFile(d, "c2", 1); // ENOSPC (no inode, no page)
                    remount(d, 0, "size=20481,nr_inodes=6"); // rounds up to 24k
                    writeFile(d, "e", 4096);
                    writeFile(d, "f", 1); // ENOSPC: 6 pages used
                    remount(d, 0, "bogus=1");
                    remount(d, 0, "size=1x");
                    remount(d, 0, "nr_inodes=1k,size=");
                    remount(d, MountFlags.MS_RDONLY, "size=4k"); // EINVAL, stays rw
                    writeFile(d, "a", 10);
                    // No limit, then a limit again: "Cannot retroactively limit". (The counts
                    // of an unlimited tmpfs differ: Linux's statfs says 0, SeqVFS's the most.)
                    quietly(d, "remount(m, size=0)", "size=0");
                    quietly(d, "remount(m, size=64k)", "size=64k");
                    umount(d);
                    d.step(
                            "mount(none, m, tmpfs, 0, nr_inodes=0,size=64k)",
                            s -> s.mount("none", "m", "tmpfs", 0, "nr_inodes=0,size=64k"));
                    quietly(d, "remount(m, nr_inodes=5)", "nr_inodes=5");
                    quietly(d, "remount(m, nr_inodes=0,size=128k)", "nr_inodes=0,size=128k");
                });
    }

    @Test
    void mount_sizeAndInodeValues_areParsedAndRoundedLikeTheHost() {
        compare(
                "size values",
                d -> {
                    for (String data :
                            new String[] {
                                "size=1k,nr_inodes=9",
                                "size=5000,nr_inodes=9",
                                "size=0x10000,nr_inodes=1k",
                                "size=010000,nr_inodes=0x10",
                                "size=1M,nr_inodes=2k",
                                "nr_blocks=3,nr_inodes=010",
                                ",,size=8k,,nr_inodes=7,",
                                "size=4097,nr_inodes=3",
                                "nr_inodes=5,size=3K,nr_inodes=6",
                            }) {
                        mount(d, "none", 0, data);
                        writeFile(d, "x", 4096);
                        writeFile(d, "y", 5000);
                        umount(d);
                    }
                    for (String bad :
                            new String[] {
                                "size=",
                                "size",
                                "size=1x",
                                "size=-1",
                                "size= 4k",
                                "size=4kk",
                                "nr_inodes=1q",
                                "mode=8",
                                "uid=x",
                                "nosuch=1",
                                "size=08",
                            }) {
                        d.step(
                                "mount(none, m, tmpfs, 0, " + bad + ")",
                                s -> s.mount("none", "m", "tmpfs", 0, bad));
                    }
                });
    }

    @Test
    void procMounts_showsSourceMountFlagsAndNonDefaultOptions_likeTheHost() {
        compare(
                "mounts line",
                d -> {
                    mount(
                            d,
                            "none",
                            MountFlags.MS_NOSUID,
                            "size=64k,nr_inodes=50,mode=0700,uid=5,gid=6");
                    remount(d, MountFlags.MS_NOEXEC, null); // nosuid dropped, noexec set
                    remount(d, MountFlags.MS_NOATIME, "size=128k");
                    remount(d, 0, null); // noatime kept
                    remount(d, MountFlags.MS_STRICTATIME, null);
                    umount(d);
                    mount(
                            d,
                            "my src",
                            MountFlags.MS_NODEV | MountFlags.MS_NOEXEC | MountFlags.MS_NOATIME,
                            "size=64k,nr_inodes=50,mode=1777,uid=0");
                    umount(d);
                    mount(d, null, MountFlags.MS_STRICTATIME, "size=4k,mode=0,nr_inodes=9");
                    umount(d);
                    mount(
                            d,
                            "x",
                            MountFlags.MS_RDONLY
                                    | MountFlags.MS_NOSUID
                                    | MountFlags.MS_NODEV
                                    | MountFlags.MS_NODIRATIME,
                            "size=8k,nr_inodes=50,mode=17755,gid=0x10");
                    remount(d, 0, null);
                });
    }
}
