package dev.seqvfs.engine;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigObject;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An engine's configuration as {@link SeqVfs} uses it: the caller's settings resolved over SeqVFS's
 * Pekko settings ({@code seqvfs-pekko.conf}) and every {@code reference.conf}, read into a {@link
 * VfsConfig}, with the key of the actor system it may share ({@link SharedSystems.Key}).
 *
 * <p>Resolving a configuration over Pekko's defaults costs about half a millisecond, as much as the
 * rest of a fresh instance, so the last {@value #CACHED} distinct caller configurations are kept,
 * compared by value ({@link ConfigObject#equals}): a test suite that creates an instance per test
 * with the same settings resolves them once. A {@link Config} is immutable, so a kept one never
 * goes stale (as with {@code ConfigFactory.load()}'s own cache, a change of the files on the
 * classpath during the run is not seen).
 *
 * <p>Thread-safe: the cache is guarded by its own monitor, held for a lookup or an insert, never
 * while resolving; the last hit, and {@link #defaultApplication()}'s result, are immutable records
 * published through volatile fields (a racing reader sees an older one or a newer one, both right).
 *
 * @param full the whole resolved configuration (the actor system's, when it starts one)
 * @param vfs the {@code seqvfs} section, read
 * @param systemKey which shared actor system it runs in
 * @param linger {@code seqvfs.actor-system.linger}
 */
record EngineConfig(Config full, VfsConfig vfs, SharedSystems.Key systemKey, Duration linger) {
    /** How many distinct caller configurations are kept. */
    static final int CACHED = 32;

    private static final Map<ConfigObject, EngineConfig> CACHE =
            new LinkedHashMap<>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<ConfigObject, EngineConfig> eldest) {
                    return size() > CACHED;
                }
            };

    /**
     * The last configuration asked for and its result, compared by identity before the cache's
     * value hash.
     */
    private record Last(ConfigObject input, EngineConfig made) {}

    private static volatile Last last;

    /** {@link #defaultApplication()}'s result and the system-properties object it was made from. */
    private record Defaults(ConfigObject overrides, Config config) {}

    private static volatile Defaults defaults;

    /**
     * Returns {@code SeqVfs.create()}'s configuration: system properties over {@code
     * application.conf} ({@code ConfigFactory.defaultOverrides()} over {@code
     * ConfigFactory.defaultApplication()}). Parsed once and reused for as long as Typesafe Config's
     * own system-properties object is the same one (it is replaced by {@code
     * ConfigFactory.invalidateCaches()}), as {@code ConfigFactory.load()} caches its result:
     * looking {@code application.conf} up on the classpath at every creation cost more than the
     * rest of the configuration.
     */
    static Config defaultApplication() {
        ConfigObject overrides = ConfigFactory.defaultOverrides().root();
        Defaults d = defaults;
        if (d != null && d.overrides() == overrides) {
            return d.config();
        }
        Config made = overrides.toConfig().withFallback(ConfigFactory.defaultApplication());
        defaults = new Defaults(overrides, made);
        return made;
    }

    /**
     * Returns {@code config} layered over {@code seqvfs-pekko.conf} and every {@code
     * reference.conf}, resolved and read (from the cache when an equal configuration was resolved
     * before).
     *
     * @throws com.typesafe.config.ConfigException if the configuration is invalid
     */
    static EngineConfig of(Config config) {
        ConfigObject key = config.root();
        Last l = last;
        if (l != null && l.input() == key) {
            return l.made();
        }
        synchronized (CACHE) {
            EngineConfig hit = CACHE.get(key);
            if (hit != null) {
                last = new Last(key, hit);
                return hit;
            }
        }
        Config full =
                config.withFallback(
                                ConfigFactory.parseResources(
                                        SeqVfs.class.getClassLoader(), "seqvfs-pekko.conf"))
                        .withFallback(ConfigFactory.defaultReference())
                        .resolve();
        EngineConfig made = read(full);
        synchronized (CACHE) {
            CACHE.put(key, made);
        }
        last = new Last(key, made);
        return made;
    }

    /**
     * Returns {@code config} layered over an embedder's system configuration and SeqVFS's defaults,
     * resolved and read (not cached: the system's configuration is large and the embedder's own).
     *
     * @throws com.typesafe.config.ConfigException if the configuration is invalid
     */
    static EngineConfig over(Config config, Config systemConfig) {
        return read(
                config.withFallback(systemConfig)
                        .withFallback(ConfigFactory.defaultReference())
                        .resolve());
    }

    private static EngineConfig read(Config full) {
        VfsConfig vfs = VfsConfig.from(full);
        return new EngineConfig(
                full,
                vfs,
                new SharedSystems.Key(full, vfs.dispatcher()),
                full.getDuration("seqvfs.actor-system.linger"));
    }
}
