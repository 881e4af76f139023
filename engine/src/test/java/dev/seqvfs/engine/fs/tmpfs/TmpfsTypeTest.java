package dev.seqvfs.engine.fs.tmpfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.seqvfs.protocol.Errno;
import dev.seqvfs.protocol.VfsException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link TmpfsType.Options#parse}: {@code size=} as {@code shmem_parse_one} reads it, {@code
 * size=N%} included (a percentage of the "RAM", which a test fixes here: 512 MiB), each rounded up
 * to whole pages; {@code size=0} is no limit. The rest of the options are checked against the host
 * by {@code MountOptionsDifferentialTest}.
 */
class TmpfsTypeTest {
    private static final long RAM = 512L << 20;
    private static final long PAGE = 4096;

    private static long sizeOf(String data) {
        return TmpfsType.Options.parse(data, "/m", RAM).bytes();
    }

    @Test
    void parse_sizePercent_isThatShareOfTheRam_roundedUpToPages() {
        assertEquals(256L << 20, sizeOf("size=50%"));
        assertEquals(RAM, sizeOf("size=100%"));
        assertEquals(2 * RAM, sizeOf("size=200%"), "more than the RAM is allowed, as on Linux");
        // 7% of 131072 pages is 9175.04 pages: rounded up to 9176
        assertEquals(9176 * PAGE, sizeOf("size=7%"));
        assertEquals(256L << 20, sizeOf("size=0x32%"), "memparse reads the number before the %");
    }

    @Test
    void parse_sizeZero_orZeroPercent_isNoLimit() {
        assertEquals(0, sizeOf("size=0"));
        assertEquals(0, sizeOf("size=0%"));
    }

    @Test
    void parse_sizeBytes_roundedUpToPages() {
        assertEquals(PAGE, sizeOf("size=1"));
        assertEquals(2 * PAGE, sizeOf("size=5000"));
        assertEquals(1L << 30, sizeOf("size=1g"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"size=50%x", "size=50%%", "size=5%0", "nr_inodes=50%", "nr_blocks=1%"})
    void parse_percentOutOfPlace_isEINVAL(String data) {
        VfsException e =
                assertThrows(VfsException.class, () -> TmpfsType.Options.parse(data, "/m", RAM));
        assertEquals(Errno.EINVAL, e.errno());
    }
}
