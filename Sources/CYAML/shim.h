// libyaml's event parser (yaml_parser_parse), as Debian 12 and Homebrew ship it (0.2.5). No variadic calls, so no
// wrappers: Spec/YAMLReader.swift, the one Swift file that imports this module, calls the library directly.
#ifndef TETHER_CYAML_SHIM_H
#define TETHER_CYAML_SHIM_H
#include <yaml.h>

#endif
