#ifndef TETHER_ARGUMENTS_H
#define TETHER_ARGUMENTS_H

/// The executable's arguments as glibc hands them to its constructors (argv, with their count in *count), or NULL
/// (*count 0) where nothing was captured: on other systems, where Swift's runtime finds them itself.
///
/// On Linux with glibc, this file also defines the Swift runtime's `_swift_stdlib_getUnsafeArgvArgc`, which
/// `CommandLine` asks, so that the runtime's own (CommandLine.cpp: a constructor that reads /proc/self/maps to find
/// the stack and walks back from `environ`, 0.25 ms of a one-contract run) is not linked into the executable.
char *const *tether_captured_arguments(int *count);

#endif
