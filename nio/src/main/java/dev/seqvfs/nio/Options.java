package dev.seqvfs.nio;

import java.nio.file.LinkOption;
import java.util.Objects;

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
}
