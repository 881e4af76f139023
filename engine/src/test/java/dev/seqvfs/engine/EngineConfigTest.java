package dev.seqvfs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.typesafe.config.ConfigFactory;
import org.junit.jupiter.api.Test;

/**
 * {@link EngineConfig}: a configuration is resolved once per distinct value, and {@code
 * SeqVfs.create()}'s default configuration is read once per system-properties snapshot of Typesafe
 * Config (as {@code ConfigFactory.load()} caches it).
 */
class EngineConfigTest {
    @Test
    void of_equalConfigurations_areResolvedOnce() {
        EngineConfig a = EngineConfig.of(ConfigFactory.parseString("seqvfs.tmpfs.max-inodes = 77"));
        EngineConfig b =
                EngineConfig.of(ConfigFactory.parseString("seqvfs { tmpfs { max-inodes = 77 } }"));
        assertSame(a, b);
        assertEquals(77, a.vfs().tmpfs().maxInodes());
        assertNotSame(
                a, EngineConfig.of(ConfigFactory.parseString("seqvfs.tmpfs.max-inodes = 78")));
    }

    @Test
    void defaultApplication_isReadOnceUntilTypesafeConfigsCachesAreInvalidated() {
        assertSame(EngineConfig.defaultApplication(), EngineConfig.defaultApplication());
        System.setProperty("seqvfs-test.marker", "on");
        try {
            // Typesafe Config's system-properties snapshot changes only when invalidated
            assertFalse(EngineConfig.defaultApplication().hasPath("seqvfs-test.marker"));
            ConfigFactory.invalidateCaches();
            assertEquals("on", EngineConfig.defaultApplication().getString("seqvfs-test.marker"));
        } finally {
            System.clearProperty("seqvfs-test.marker");
            ConfigFactory.invalidateCaches();
        }
        assertFalse(EngineConfig.defaultApplication().hasPath("seqvfs-test.marker"));
    }
}
