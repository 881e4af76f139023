package dev.seqvfs.fuse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.seqvfs.protocol.MountFlags;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Specifies the kernel transport's mount options ({@link KernelMount#parse}): the mount flags with
 * libfuse's defaults ({@code nosuid,nodev}), the kernel's options passed on, the cache settings in
 * libfuse's units (seconds), libfuse 2's options accepted as no-ops, anything else refused.
 */
class KernelMountTest {

    @Test
    void parse_noOptions_isNosuidNodev_noKernelOptions_noCaching() throws Exception {
        KernelMount.Options o = KernelMount.parse(List.of());
        assertEquals(MountFlags.MS_NOSUID | MountFlags.MS_NODEV, o.flags());
        assertEquals(List.of(), o.kernel());
        assertEquals(KernelFs.Cache.NONE, o.cache());
        assertEquals("seqvfs", o.fsname());
        assertEquals("seqvfs", o.subtype());
    }

    @Test
    void parse_flagsAndKernelOptions_inEitherSpelling() throws Exception {
        KernelMount.Options o =
                KernelMount.parse(List.of("ro,suid", "noatime", "allow_other,default_permissions"));
        assertEquals(MountFlags.MS_RDONLY | MountFlags.MS_NODEV | MountFlags.MS_NOATIME, o.flags());
        assertEquals(List.of("allow_other", "default_permissions"), o.kernel());
        assertEquals(List.of("ro", "suid", "noatime"), o.flagNames());
    }

    @Test
    void parse_cachedOptions_giveTimeoutsInNanoseconds_andTheCacheFlags() throws Exception {
        KernelMount.Options o = KernelMount.parse(List.of(FuseMount.CACHED_OPTIONS));
        assertEquals(
                new KernelFs.Cache(
                        1_000_000_000L, 1_000_000_000L, 1_000_000_000L, true, true, true),
                o.cache());
        assertTrue(o.kernel().contains("default_permissions"));
        KernelMount.Options later =
                KernelMount.parse(List.of(FuseMount.CACHED_OPTIONS, "attr_timeout=0.25"));
        assertEquals(250_000_000L, later.cache().attrNanos(), "a later option overrides");
        assertFalse(
                KernelMount.parse(List.of("cache_readdir")).cache().noOpendir(),
                "directories are opened without a request only where the kernel checks the open");
    }

    @Test
    void parse_libfuse2Options_areAcceptedAndChangeNothing() throws Exception {
        KernelMount.Options o = KernelMount.parse(List.of(FuseMount.FIXED_OPTIONS));
        assertEquals(KernelFs.Cache.NONE, o.cache());
        assertEquals(List.of(), o.kernel());
        assertFalse(o.flagNames().contains("use_ino"));
    }

    @Test
    void parse_unknownOrMalformedOption_failsTheMount() {
        for (String bad :
                List.of(
                        "bogus",
                        "entry_timeout=x",
                        "attr_timeout=-1",
                        "max_read=",
                        "allow_other=1",
                        "fsname=")) {
            FuseMountException e =
                    assertThrows(FuseMountException.class, () -> KernelMount.parse(List.of(bad)));
            assertEquals(FuseMountException.Reason.FAILED, e.reason(), bad);
            assertTrue(e.getMessage().contains(bad), e.getMessage());
        }
    }
}
