package dev.seqvfs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.sb.HeapPool;
import dev.seqvfs.engine.sb.SuperblockConfig;
import dev.seqvfs.protocol.Credentials;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link VfsConfig#from}: every value of the {@code seqvfs} section is checked against its range,
 * and a bad one fails with a {@link ConfigException.BadValue} that names the key and says what it
 * may be, before any actor starts.
 */
class VfsConfigTest {
    private static Config over(String settings) {
        return ConfigFactory.parseString(settings).withFallback(ConfigFactory.defaultReference());
    }

    @Test
    void from_referenceDefaults_readAsDocumented() {
        VfsConfig c = VfsConfig.from(over(""));
        assertEquals(1024, c.rlimitNofile());
        assertEquals(3, c.optimisticAttempts());
        assertEquals(01777, c.rootMode());
        assertEquals("tmpfs", c.rootType());
        assertEquals(4096, c.tmpfs().blockSize());
        assertEquals(64, c.tmpfs().inodeBatch());
    }

    /** 512 MiB of heap: the "RAM" the tmpfs defaults are a share of. */
    private static final long RAM = 512L << 20;

    @Test
    void from_tmpfsDefaults_areHalfTheHeapAndHalfItsPages() {
        VfsConfig c = VfsConfig.from(over(""), RAM);
        assertEquals(256L << 20, c.tmpfs().maxBytes());
        assertEquals(65536, c.tmpfs().maxInodes(), "512 MiB / 4096 / 2");
        VfsConfig real = VfsConfig.from(over(""));
        long maxMemory = Runtime.getRuntime().maxMemory();
        assertEquals(HeapPool.percentOfRam(50, maxMemory), real.tmpfs().maxBytes());
        assertEquals(maxMemory / 4096 / 2, real.tmpfs().maxInodes());
    }

    @Test
    void from_tmpfsLimits_percentSizeOrZero() {
        SuperblockConfig t =
                VfsConfig.from(
                                over(
                                        "seqvfs.tmpfs.max-bytes = \"25%\"\n"
                                                + "seqvfs.tmpfs.max-inodes = \"1%\""),
                                RAM)
                        .tmpfs();
        assertEquals(128L << 20, t.maxBytes());
        assertEquals(1310, t.maxInodes(), "1% of 131072 pages");
        t =
                VfsConfig.from(over("seqvfs.tmpfs.max-bytes = 0\nseqvfs.tmpfs.max-inodes = 0"), RAM)
                        .tmpfs();
        assertEquals(Long.MAX_VALUE, t.maxBytes(), "0 is no limit, as size=0");
        assertEquals(Long.MAX_VALUE, t.maxInodes());
        t = VfsConfig.from(over("seqvfs.tmpfs.max-bytes = 1000"), RAM).tmpfs();
        assertEquals(4096, t.maxBytes(), "rounded up to a page, as size=1000");
        t = VfsConfig.from(over("seqvfs.tmpfs.max-bytes = 64m"), RAM).tmpfs();
        assertEquals(64L << 20, t.maxBytes());
        t = VfsConfig.from(over("seqvfs.tmpfs.max-bytes = \"0%\""), RAM).tmpfs();
        assertEquals(Long.MAX_VALUE, t.maxBytes());
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "seqvfs.tmpfs.max-bytes = \"x%\"",
                "seqvfs.tmpfs.max-bytes = \"-5%\"",
                "seqvfs.tmpfs.max-bytes = \"%\"",
                "seqvfs.tmpfs.max-bytes = \"99999999999999999999%\"",
                "seqvfs.tmpfs.max-bytes = \"9000000000000000%\"",
                "seqvfs.tmpfs.max-inodes = \"1.5%\"",
                "seqvfs.tmpfs.max-inodes = \"half\"",
            })
    void from_badTmpfsLimit_failsWithBadValueNamingTheKey(String setting) {
        String key = setting.substring(0, setting.indexOf(' '));
        ConfigException.BadValue e =
                assertThrows(
                        ConfigException.BadValue.class, () -> VfsConfig.from(over(setting), RAM));
        assertTrue(e.getMessage().contains(key), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "seqvfs.root.mode = \"9\"",
                "seqvfs.root.mode = \"-1\"",
                "seqvfs.root.mode = \"17777\"",
                "seqvfs.root.mode = \"+7\"",
                "seqvfs.root.uid = -1",
                "seqvfs.root.gid = -2",
                "seqvfs.fd.rlimit-nofile = -1",
                "seqvfs.fd.rlimit-nofile = 1048577",
                "seqvfs.walk.optimistic-attempts = 0",
                "seqvfs.tmpfs.block-size = 0",
                "seqvfs.tmpfs.block-size = 1000",
                "seqvfs.tmpfs.block-size = 131072",
                "seqvfs.tmpfs.inode-batch = 0",
                "seqvfs.tmpfs.max-inodes = -5",
                "seqvfs.tmpfs.max-bytes = -5",
                "seqvfs.ask-timeout = 0s",
                "seqvfs.root.type = proc",
            })
    void from_valueOutOfRange_failsWithBadValueNamingTheKey(String setting) {
        String key = setting.substring(0, setting.indexOf(' '));
        ConfigException.BadValue e =
                assertThrows(ConfigException.BadValue.class, () -> VfsConfig.from(over(setting)));
        assertTrue(e.getMessage().contains(key), e.getMessage());
    }

    @Test
    void from_procRootWithProcMountOn_saysWhichSettingToChange() {
        ConfigException.BadValue e =
                assertThrows(
                        ConfigException.BadValue.class,
                        () -> VfsConfig.from(over("seqvfs.root.type = proc")));
        assertTrue(e.getMessage().contains("seqvfs.proc.mount"), e.getMessage());
    }

    @Test
    void create_procRootWithoutProcMount_works() {
        try (SeqVfs vfs =
                        SeqVfs.create(
                                ConfigFactory.parseString(
                                        "seqvfs.root.type = proc\nseqvfs.proc.mount = off"));
                VfsTask t = vfs.newTask(Credentials.ROOT)) {
            assertEquals("proc", vfs.rootType());
            assertEquals("self/mounts", t.readlink("/mounts"));
        }
    }

    @Test
    void create_unknownRootType_failsWithBadValueListingTheTypes() {
        ConfigException.BadValue e =
                assertThrows(
                        ConfigException.BadValue.class,
                        () -> SeqVfs.create(ConfigFactory.parseString("seqvfs.root.type = ext9")));
        assertTrue(e.getMessage().contains("seqvfs.root.type"), e.getMessage());
        assertTrue(e.getMessage().contains("tmpfs"), e.getMessage());
    }

    @Test
    void create_rootOptionsTheTypeRefuses_failsWithBadValueNamingTheOptions() {
        ConfigException.BadValue e =
                assertThrows(
                        ConfigException.BadValue.class,
                        () ->
                                SeqVfs.create(
                                        ConfigFactory.parseString(
                                                "seqvfs.root.options = \"size=1x\"")));
        assertTrue(e.getMessage().contains("seqvfs.root.options"), e.getMessage());
        assertTrue(e.getMessage().contains("size=1x"), e.getMessage());
        assertTrue(e.getMessage().contains("EINVAL"), e.getMessage());
    }
}
