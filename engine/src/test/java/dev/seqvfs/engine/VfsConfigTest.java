package dev.seqvfs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
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
