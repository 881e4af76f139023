package dev.seqvfs.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValue;
import java.util.Map;
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

    /**
     * {@code ConfigFactory.load()} carries Pekko's reference defaults ({@code
     * jvm-exit-on-fatal-error = on}, a JVM shutdown hook, INFO logging); SeqVFS's own settings must
     * still be in force, exactly as with {@code SeqVfs.create()}.
     */
    @Test
    void of_configFactoryLoad_keepsEverySeqVfsPekkoSetting() {
        ConfigFactory.invalidateCaches();
        Config loaded = ConfigFactory.load();
        assertTrue(loaded.getBoolean("pekko.jvm-exit-on-fatal-error"), "Pekko's default, loaded");
        Config viaLoad = EngineConfig.of(loaded).full();
        Config viaCreate = EngineConfig.of(EngineConfig.defaultApplication()).full();
        for (Map.Entry<String, ConfigValue> e : EngineConfig.PEKKO_SETTINGS.entrySet()) {
            assertEquals(
                    e.getValue().unwrapped(),
                    viaLoad.getValue(e.getKey()).unwrapped(),
                    e.getKey() + " under ConfigFactory.load()");
            assertEquals(
                    e.getValue().unwrapped(),
                    viaCreate.getValue(e.getKey()).unwrapped(),
                    e.getKey() + " under SeqVfs.create()");
        }
        assertEquals(
                EngineConfig.of(EngineConfig.defaultApplication()).systemKey(),
                EngineConfig.of(loaded).systemKey(),
                "both run in the same shared actor system");
    }

    @Test
    void of_anEmbeddersExplicitPekkoSetting_wins() {
        Config mine =
                ConfigFactory.parseString("pekko.loglevel = INFO, pekko.daemonic = off")
                        .withFallback(ConfigFactory.load());
        Config full = EngineConfig.of(mine).full();
        assertEquals("INFO", full.getString("pekko.loglevel"));
        assertFalse(full.getBoolean("pekko.daemonic"));
        assertFalse(full.getBoolean("pekko.jvm-exit-on-fatal-error"), "not set by the embedder");
    }
}
