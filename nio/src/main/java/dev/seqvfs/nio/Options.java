package dev.seqvfs.nio;

import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.Set;

/** Option parsing shared by the provider's calls. Stateless; thread-safe. */
final class Options {
    private Options() {}

    /** {@return false if {@code NOFOLLOW_LINKS} is among the options} */
    static boolean followLinks(LinkOption... options) {
        boolean follow = true;
        for (LinkOption o : options) {
            if (Objects.requireNonNull(o) == LinkOption.NOFOLLOW_LINKS) {
                follow = false;
            }
        }
        return follow;
    }

    /** {@return false if {@code NOFOLLOW_LINKS} is among the options} */
    static boolean followLinks(Set<? extends OpenOption> options) {
        return !options.contains(LinkOption.NOFOLLOW_LINKS);
    }

    /** {@return whether the options open for writing} */
    static boolean writes(Set<? extends OpenOption> options) {
        return options.contains(StandardOpenOption.WRITE)
                || options.contains(StandardOpenOption.APPEND);
    }
}
