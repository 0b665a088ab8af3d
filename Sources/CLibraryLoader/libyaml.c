// libyaml's functions that Tether calls (Spec/YAMLReader.swift), each opening libyaml at the first call (loader.c
// says why and how).
#include "loader.h"

#if defined(__linux__)
#define LIBRARY tether_libyaml
#include <yaml.h>

FORWARD_FUNCTION(int, yaml_parser_initialize, (yaml_parser_t *parser), (parser))
FORWARD_VOID(yaml_parser_set_input_string, (yaml_parser_t *parser, const unsigned char *input, size_t size),
    (parser, input, size))
FORWARD_FUNCTION(int, yaml_parser_parse, (yaml_parser_t *parser, yaml_event_t *event), (parser, event))
FORWARD_VOID(yaml_event_delete, (yaml_event_t *event), (event))
FORWARD_VOID(yaml_parser_delete, (yaml_parser_t *parser), (parser))

#endif
