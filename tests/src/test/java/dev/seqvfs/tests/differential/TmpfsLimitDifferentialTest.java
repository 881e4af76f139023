package dev.seqvfs.tests.differential;

import static dev.seqvfs.protocol.Falloc.FALLOC_FL_KEEP_SIZE;
import static dev.seqvfs.protocol.Falloc.FALLOC_FL_PUNCH_HOLE;
import static dev.seqvfs.protocol.OpenFlags.O_APPEND;
import static dev.seqvfs.protocol.OpenFlags.O_CREAT;
import static dev.seqvfs.protocol.OpenFlags.O_RDWR;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Writes near a full tmpfs, against the host: a real tmpfs with {@code size=64k} (16 pages of 4
 * KiB) mounted for the test under {@code /dev/shm} is the sandbox's root, and SeqVFS's root tmpfs
 * has the same option. Every {@code write}, {@code pwrite}, {@code writev}, {@code ftruncate} and
 * {@code fallocate} is made on both, and its return value or errno, then the file's {@code st_size}
 * and {@code st_blocks}, and the file system's free blocks, must be equal. tmpfs writes the pages
 * that fit and returns the short count ({@code shmem_write_begin} fails the first page that does
 * not, {@code generic_perform_write} returns what was copied), {@code ENOSPC} only when not one
 * byte fits; {@code fallocate} allocates all or nothing; {@code ftruncate} never allocates;
 * punching a hole gives pages back, past the end of the file too. Table-driven cases pin the edges
 * (page boundaries, a write exactly filling the file system, one byte past it, rewrites of
 * allocated pages when full); seeded random sequences mix the calls, and removals, over three
 * files. Skipped where the host cannot take part (not root, no gcc, no mount(8)).
 */
class TmpfsLimitDifferentialTest {
    private static final String OPTIONS = "size=64k";
    private static final int PAGE = 4096;
    private static final int PAGES = 16;

    @BeforeEach
    void host() {
        String why = HostTmpfs.unavailableReason();
        Assumptions.assumeTrue(why == null, why);
    }

    /** Runs {@code script} on a fresh host tmpfs and a fresh SeqVFS, then checks every answer. */
    private static void compare(String name, java.util.function.Consumer<DataDiff> script) {
        try (DataSide.Host host = new DataSide.Host(OPTIONS);
                DataSide.Vfs vfs = new DataSide.Vfs(OPTIONS)) {
            DataDiff d = new DataDiff(host, vfs);
            script.accept(d);
            assertEquals(List.of(), d.mismatches(), name + ":\n" + d.transcript());
        }
    }

    /** Opens {@code f<i>} read-write (created), on descriptor {@code i} of both sides. */
    private static void open(DataDiff d, int i, int extra) {
        String fd =
                d.step("open(f" + i + ")", s -> s.open("f" + i, O_CREAT | O_RDWR | extra, 0644));
        assertEquals(Integer.toString(i), fd, "descriptor of f" + i);
    }

    /** Then checks size, blocks and the free count. */
    private static void after(DataDiff d, int fd) {
        d.step("  fstat(" + fd + ")", s -> s.fstatSize(fd));
        d.step("  fstatfs(" + fd + ")", s -> s.fstatfsFree(fd));
    }

    private static void write(DataDiff d, int fd, int len) {
        d.step("write(" + fd + ", " + len + ")", s -> s.write(fd, len));
        after(d, fd);
    }

    private static void pwrite(DataDiff d, int fd, int len, long off) {
        d.step("pwrite(" + fd + ", " + len + ", " + off + ")", s -> s.pwrite(fd, len, off));
        after(d, fd);
    }

    private static void writev(DataDiff d, int fd, int... lens) {
        d.step(
                "writev(" + fd + ", " + java.util.Arrays.toString(lens) + ")",
                s -> s.writev(fd, lens));
        after(d, fd);
    }

    private static void ftruncate(DataDiff d, int fd, long len) {
        d.step("ftruncate(" + fd + ", " + len + ")", s -> s.ftruncate(fd, len));
        after(d, fd);
    }

    private static void fallocate(DataDiff d, int fd, int mode, long off, long len) {
        d.step(
                "fallocate(" + fd + ", " + mode + ", " + off + ", " + len + ")",
                s -> s.fallocate(fd, mode, off, len));
        after(d, fd);
    }

    // ------------------------------------------------------------------ table

    @Test
    void write_pastTheLimit_writesThePagesThatFit_thenENOSPC_likeTheHost() {
        compare(
                "short write",
                d -> {
                    open(d, 0, 0);
                    write(d, 0, PAGES * PAGE - 100); // all but 100 bytes of the last page
                    write(d, 0, 50); // fits in the allocated last page
                    write(d, 0, 100); // 50 fit, then the next page does not
                    write(d, 0, 1); // nothing fits: ENOSPC
                    pwrite(d, 0, 10, 0); // rewriting an allocated page needs no room
                    pwrite(d, 0, PAGE * 2, PAGE * 15 + 10); // crosses into unallocated pages
                    ftruncate(d, 0, PAGE * 4); // gives 12 pages back
                    write(d, 0, PAGE * 20); // at the old offset: holes, then 12 pages fit
                    ftruncate(d, 0, 0);
                });
    }

    @Test
    void write_exactlyFillingTheFileSystem_thenOneByteMore_likeTheHost() {
        compare(
                "exact fill",
                d -> {
                    open(d, 0, 0);
                    open(d, 1, O_APPEND);
                    write(d, 0, PAGES * PAGE - PAGE);
                    write(d, 1, PAGE); // f1 takes the last page exactly
                    write(d, 1, 1); // ENOSPC
                    write(d, 0, 1); // ENOSPC: f0's last page is full
                    ftruncate(d, 0, PAGE * 3 + 1); // frees 11 pages, keeps 4
                    writev(d, 1, PAGE, PAGE, 3 * PAGE, 5 * PAGE, PAGE);
                    writev(d, 1, 1, 2);
                    d.step("unlink(f0)", s -> s.unlink("f0"));
                    after(d, 1);
                    d.step("close(0)", s -> s.close(0));
                    after(d, 1);
                    writev(d, 1, 7 * PAGE, 1);
                });
    }

    @Test
    void fallocate_nearTheLimit_allOrNothing_likeTheHost() {
        compare(
                "fallocate",
                d -> {
                    open(d, 0, 0);
                    fallocate(d, 0, 0, 0, PAGE * 10);
                    fallocate(
                            d,
                            0,
                            FALLOC_FL_KEEP_SIZE,
                            PAGE * 20,
                            PAGE * 7); // 7 pages, 6 free: ENOSPC
                    fallocate(d, 0, FALLOC_FL_KEEP_SIZE, PAGE * 20, PAGE * 6); // fits exactly
                    write(d, 0, 1); // offset 0: allocated
                    pwrite(d, 0, 1, PAGE * 12); // a hole page: ENOSPC
                    fallocate(
                            d,
                            0,
                            FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                            PAGE * 2,
                            PAGE * 3 + 5);
                    pwrite(d, 0, PAGE * 3, PAGE * 12);
                    fallocate(d, 0, 0, PAGE * 5, 100); // within allocated pages
                    ftruncate(d, 0, PAGE * 40);
                    fallocate(d, 0, 0, 0, PAGE * 40); // ENOSPC, nothing allocated
                });
    }

    // ------------------------------------------------------------------ random

    private static final int[] LENGTHS = {
        0,
        1,
        100,
        PAGE - 1,
        PAGE,
        PAGE + 1,
        2 * PAGE,
        3 * PAGE + 7,
        8 * PAGE,
        PAGES * PAGE,
        PAGES * PAGE + 1,
        20 * PAGE
    };
    private static final long[] OFFSETS = {
        0, 1, PAGE - 1, PAGE, 5 * PAGE + 3, 15 * PAGE, PAGES * PAGE - 1, PAGES * PAGE, 30 * PAGE
    };

    private static int len(Random r) {
        return r.nextInt(4) == 0 ? r.nextInt(3 * PAGE) : LENGTHS[r.nextInt(LENGTHS.length)];
    }

    private static long off(Random r) {
        return r.nextInt(4) == 0 ? r.nextInt(PAGES * PAGE * 2) : OFFSETS[r.nextInt(OFFSETS.length)];
    }

    /** Random sequences per run: {@code -Dseqvfs.diff.seeds=N} (default 24), seeds 1..N. */
    private static int seeds() {
        String s = System.getProperty("seqvfs.diff.seeds", "");
        return s.isBlank() ? 24 : Integer.parseInt(s.trim());
    }

    @Test
    void randomWritesTruncatesAndFallocates_nearTheLimit_likeTheHost() {
        for (long seed = 1; seed <= seeds(); seed++) {
            Random r = new Random(seed);
            compare(
                    "seed " + seed,
                    d -> {
                        open(d, 0, 0);
                        open(d, 1, 0);
                        open(d, 2, O_APPEND);
                        for (int op = 0; op < 40; op++) {
                            int fd = r.nextInt(3);
                            switch (r.nextInt(11)) {
                                case 0, 1, 2 -> write(d, fd, len(r));
                                case 3, 4 -> pwrite(d, fd, len(r), off(r));
                                case 5 -> writev(d, fd, len(r), len(r), r.nextInt(PAGE));
                                case 6, 7 -> ftruncate(d, fd, r.nextBoolean() ? off(r) : 0);
                                case 8 -> {
                                    // remove and recreate: the pages of the old file come back
                                    d.step("close(" + fd + ")", s -> s.close(fd));
                                    d.step("unlink(f" + fd + ")", s -> s.unlink("f" + fd));
                                    open(d, fd, fd == 2 ? O_APPEND : 0);
                                    after(d, fd);
                                }
                                default -> {
                                    int[] modes = {
                                        0,
                                        FALLOC_FL_KEEP_SIZE,
                                        FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE
                                    };
                                    fallocate(
                                            d,
                                            fd,
                                            modes[r.nextInt(modes.length)],
                                            off(r),
                                            Math.max(1, len(r)));
                                }
                            }
                        }
                    });
        }
    }
}
