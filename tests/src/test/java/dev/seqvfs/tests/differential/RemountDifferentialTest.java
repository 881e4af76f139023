package dev.seqvfs.tests.differential;

import static dev.seqvfs.protocol.OpenFlags.O_ACCMODE;
import static dev.seqvfs.protocol.OpenFlags.O_CREAT;
import static dev.seqvfs.protocol.OpenFlags.O_RDONLY;
import static dev.seqvfs.protocol.OpenFlags.O_RDWR;
import static dev.seqvfs.protocol.OpenFlags.O_WRONLY;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * {@code mount -o remount,ro} of a tmpfs with files open, against the host: a real tmpfs ({@code
 * size=64k}) mounted for the test under {@code /dev/shm} is the sandbox's root, and {@code hostops}
 * remounts it with {@code mount(2)}; SeqVFS remounts its root tmpfs. Linux's {@code
 * sb_prepare_remount_readonly} refuses with {@code EBUSY} while a file is open for writing (and
 * while a removed file is still open, {@code s_remove_count}); the failed remount changes nothing
 * (the descriptor still writes, the statfs flags stay rw), and once the last writer closes the
 * remount succeeds. Skipped where the host cannot take part (not root, no gcc, no mount(8)).
 */
class RemountDifferentialTest {
    @Test
    void remountReadOnly_fileOpenForWriting_failsWithEBUSYLikeTheHost_andSucceedsAfterClose() {
        String why = HostTmpfs.unavailableReason();
        Assumptions.assumeTrue(why == null, why);
        try (DataSide.Host host = new DataSide.Host("size=64k");
                DataSide.Vfs vfs = new DataSide.Vfs("size=64k")) {
            DataDiff d = new DataDiff(host, vfs);
            d.step("open(f, O_CREAT|O_WRONLY)", s -> s.open("f", O_CREAT | O_WRONLY, 0644));
            d.step("remount ro (f open O_WRONLY)", s -> s.remount(true));
            d.step("fstatfs flags", s -> s.statfsFlags(0));
            d.step("write(0, 3)", s -> s.write(0, 3));
            d.step("mkdir(d)", s -> s.mkdir("d", 0755));
            d.step("close(0)", s -> s.close(0));
            d.step("open(f, O_RDONLY)", s -> s.open("f", O_RDONLY, 0));
            d.step("open(f, access mode 3)", s -> s.open("f", O_ACCMODE, 0));
            d.step("remount ro (f open read-only, mode 3)", s -> s.remount(true));
            d.step("fstatfs flags", s -> s.statfsFlags(0));
            d.step("open(f, O_WRONLY) on ro", s -> s.open("f", O_WRONLY, 0));
            d.step("open(g, O_CREAT|O_RDONLY) on ro", s -> s.open("g", O_CREAT | O_RDONLY, 0644));
            d.step("mkdir(e) on ro", s -> s.mkdir("e", 0755));
            d.step("remount ro again", s -> s.remount(true));
            d.step("remount rw", s -> s.remount(false));
            d.step("open(f, O_RDWR)", s -> s.open("f", O_RDWR, 0));
            d.step("remount ro (f open O_RDWR)", s -> s.remount(true));
            d.step("close(2)", s -> s.close(2));
            d.step("remount ro", s -> s.remount(true));
            d.step("remount rw", s -> s.remount(false));
            d.step("close(0)", s -> s.close(0));
            d.step("close(1)", s -> s.close(1));
            d.step("open(h, O_CREAT|O_RDONLY)", s -> s.open("h", O_CREAT | O_RDONLY, 0644));
            d.step("unlink(h)", s -> s.unlink("h"));
            d.step("remount ro (h removed, still open)", s -> s.remount(true));
            d.step("close(0)", s -> s.close(0));
            d.step("remount ro (h gone)", s -> s.remount(true));
            d.step("remount rw", s -> s.remount(false));
            System.out.println("remount differential:\n" + d.transcript());
            assertEquals(List.of(), d.mismatches(), d.transcript());
            assertEquals(List.of(), vfs.fsck());
        }
    }
}
