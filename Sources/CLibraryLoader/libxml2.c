// libxml2's functions that Tether calls, each opening libxml2 at the first call (loader.c says why and how).
#include "loader.h"

#if defined(__linux__)
#define LIBRARY tether_libxml2
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlschemas.h>
#include <libxml/xmlschemastypes.h>

FORWARD_VOID(xmlInitParser, (void), ())
FORWARD_VOID(xmlSetExternalEntityLoader, (xmlExternalEntityLoader loader), (loader))
FORWARD_VOID(xmlSetStructuredErrorFunc, (void *context, xmlStructuredErrorFunc handler), (context, handler))
FORWARD_VOID(xmlResetLastError, (void), ())
FORWARD_FUNCTION(xmlDocPtr, xmlReadMemory,
    (const char *buffer, int size, const char *url, const char *encoding, int options),
    (buffer, size, url, encoding, options))
FORWARD_FUNCTION(xmlParserCtxtPtr, xmlCreateMemoryParserCtxt, (const char *buffer, int size), (buffer, size))
FORWARD_FUNCTION(int, xmlCtxtUseOptions, (xmlParserCtxtPtr context, int options), (context, options))
FORWARD_FUNCTION(int, xmlParseDocument, (xmlParserCtxtPtr context), (context))
FORWARD_VOID(xmlFreeParserCtxt, (xmlParserCtxtPtr context), (context))
FORWARD_FUNCTION(xmlDocPtr, xmlCopyDoc, (xmlDocPtr document, int recursive), (document, recursive))
FORWARD_VOID(xmlFreeDoc, (xmlDocPtr document), (document))
FORWARD_FUNCTION(xmlNodePtr, xmlDocGetRootElement, (const xmlDoc *document), (document))
FORWARD_FUNCTION(long, xmlGetLineNo, (const xmlNode *node), (node))
FORWARD_FUNCTION(xmlChar *, xmlNodeListGetString, (xmlDocPtr document, const xmlNode *list, int inLine),
    (document, list, inLine))

// void in libxml2 2.9, int from 2.11: the header's own return type.
FORWARD_FUNCTION(__typeof__(xmlSchemaInitTypes()), xmlSchemaInitTypes, (void), ())
FORWARD_FUNCTION(xmlSchemaParserCtxtPtr, xmlSchemaNewDocParserCtxt, (xmlDocPtr document), (document))
FORWARD_VOID(xmlSchemaSetParserStructuredErrors,
    (xmlSchemaParserCtxtPtr context, xmlStructuredErrorFunc handler, void *handlerContext),
    (context, handler, handlerContext))
FORWARD_FUNCTION(xmlSchemaPtr, xmlSchemaParse, (xmlSchemaParserCtxtPtr context), (context))
FORWARD_VOID(xmlSchemaFreeParserCtxt, (xmlSchemaParserCtxtPtr context), (context))
FORWARD_VOID(xmlSchemaFree, (xmlSchemaPtr schema), (schema))
FORWARD_FUNCTION(xmlSchemaValidCtxtPtr, xmlSchemaNewValidCtxt, (xmlSchemaPtr schema), (schema))
FORWARD_VOID(xmlSchemaSetValidStructuredErrors,
    (xmlSchemaValidCtxtPtr context, xmlStructuredErrorFunc handler, void *handlerContext),
    (context, handler, handlerContext))
FORWARD_FUNCTION(int, xmlSchemaValidateDoc, (xmlSchemaValidCtxtPtr context, xmlDocPtr document), (context, document))
FORWARD_VOID(xmlSchemaFreeValidCtxt, (xmlSchemaValidCtxtPtr context), (context))

#endif
