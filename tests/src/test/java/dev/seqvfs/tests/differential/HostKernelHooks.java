package dev.seqvfs.tests.differential;

import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.LifecycleContext;
import net.jqwik.api.lifecycle.PropagationMode;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;
import net.jqwik.api.lifecycle.SkipExecutionHook;

/**
 * jqwik hooks of the differential classes: skip them, with the reason, where the host cannot take
 * part (no gcc, not root, no tmpfs at /dev/shm); and let {@code -Dseqvfs.diff.tries=N} override a
 * property's number of tries.
 */
public final class HostKernelHooks implements SkipExecutionHook, AroundPropertyHook {
    /** The system property that overrides the tries of the differential properties. */
    public static final String TRIES_PROPERTY = "seqvfs.diff.tries";

    /** Applies to the annotated class and to each of its properties and examples. */
    @Override
    public PropagationMode propagateTo() {
        return PropagationMode.ALL_DESCENDANTS;
    }

    @Override
    public SkipResult shouldBeSkipped(LifecycleContext context) {
        String why = HostKernel.unavailableReason();
        if (why == null) {
            return SkipResult.doNotSkip();
        }
        System.err.println("[SKIPPED] " + context.label() + ": " + why);
        return SkipResult.skip(why);
    }

    @Override
    public PropertyExecutionResult aroundProperty(
            PropertyLifecycleContext context, PropertyExecutor property) {
        String tries = System.getProperty(TRIES_PROPERTY);
        boolean isProperty = context.attributes().tries().orElse(2) > 1;
        if (isProperty && tries != null && !tries.isBlank()) {
            context.attributes().setTries(Integer.parseInt(tries.trim()));
        }
        return property.execute();
    }
}
