// libxml2, loaded when Tether first reads XML instead of when it starts (Linux only).
//
// Why: libxml2 brings ICU (libicuuc, its 30 MB libicudata) and liblzma, and the dynamic loader binds about 9,750 of
// their symbols at every start, though most runs read no XML: a JSON verify, a tiny contract's start-up, `--help`.
// An empty program linked with libcurl and the package's other libraries starts in 8.7 ms without libxml2 and 9.7 ms
// with it (medians of 100 interleaved runs, Debian 12; bench/HISTORY.md).
//
// How: every libxml2 function Tether's sources call (TetherKit/XML/XMLElementNode.swift) is defined here under its
// own name. The first call opens libxml2 with dlopen(3) and each function finds libxml2's own with dlsym(3) on that
// handle (which searches libxml2 and its dependencies, never this executable), once. The package still links
// libxml2 as pkg-config says (so `swift build` and `swift test` work as before, the library then already loaded);
// scripts/build removes it from the release executable's needed libraries (scripts/order-needed --drop), after
// checking that no symbol of the executable binds to it. A function called from Swift that is missing here binds to
// libxml2 itself, and scripts/build then refuses to drop it: it cannot fail silently.
//
// Not on macOS: libxml2 is part of the SDK there, in the shared cache, and linked as usual.
#include "tether_libxml2_loader.h"

#if defined(__linux__)
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlschemas.h>
#include <libxml/xmlschemastypes.h>

// libxml2 2.14 changed its ABI and its soname; the one these headers describe is the one to load.
#if LIBXML_VERSION >= 21400
#define TETHER_LIBXML2_SONAME "libxml2.so.16"
#else
#define TETHER_LIBXML2_SONAME "libxml2.so.2"
#endif

static void *library;  // read and written atomically: two threads may both open it; dlopen counts, both get one

int tether_libxml2_is_loaded(void) { return __atomic_load_n(&library, __ATOMIC_ACQUIRE) != NULL; }

// Where the executable was linked with libxml2, it is already loaded and dlopen only finds it. Where it was not, and
// libxml2 is missing now, the run cannot read XML: it says so and exits as the dynamic loader does for a missing
// library (127), rather than go on without the check the user asked for.
__attribute__((noreturn, cold)) static void unavailable(const char *what) {
    fprintf(stderr,
            "tether: cannot load libxml2 (%s), which reading XML needs: %s\n"
            "  install it: apt-get install libxml2 (Debian, Ubuntu), dnf install libxml2 (Fedora)\n",
            TETHER_LIBXML2_SONAME, what);
    _exit(127);
}

static void *resolve(const char *name) {
    void *handle = __atomic_load_n(&library, __ATOMIC_ACQUIRE);
    if (handle == NULL) {
        handle = dlopen(TETHER_LIBXML2_SONAME, RTLD_NOW | RTLD_LOCAL);
        if (handle == NULL) {
            const char *error = dlerror();
            unavailable(error ? error : "dlopen failed");
        }
        __atomic_store_n(&library, handle, __ATOMIC_RELEASE);
    }
    void *function = dlsym(handle, name);
    if (function == NULL) unavailable(name);
    return function;
}

// `name`'s own function in libxml2, found once (a race only finds it twice).
#define REAL(name)                                                                                                   \
    static __typeof__(&name) real_##name;                                                                             \
    __typeof__(&name) name##_found = __atomic_load_n(&real_##name, __ATOMIC_ACQUIRE);                                 \
    if (name##_found == NULL) {                                                                                        \
        name##_found = (__typeof__(&name))resolve(#name);                                                             \
        __atomic_store_n(&real_##name, name##_found, __ATOMIC_RELEASE);                                               \
    }

// Hidden: only this executable's own calls come here; libxml2's calls among its functions stay inside it.
#define FORWARD __attribute__((visibility("hidden")))

FORWARD void xmlInitParser(void) {
    REAL(xmlInitParser)
    xmlInitParser_found();
}

FORWARD void xmlSetExternalEntityLoader(xmlExternalEntityLoader loader) {
    REAL(xmlSetExternalEntityLoader)
    xmlSetExternalEntityLoader_found(loader);
}

FORWARD void xmlSetStructuredErrorFunc(void *context, xmlStructuredErrorFunc handler) {
    REAL(xmlSetStructuredErrorFunc)
    xmlSetStructuredErrorFunc_found(context, handler);
}

FORWARD void xmlResetLastError(void) {
    REAL(xmlResetLastError)
    xmlResetLastError_found();
}

FORWARD xmlDocPtr xmlReadMemory(const char *buffer, int size, const char *url, const char *encoding, int options) {
    REAL(xmlReadMemory)
    return xmlReadMemory_found(buffer, size, url, encoding, options);
}

FORWARD xmlParserCtxtPtr xmlCreateMemoryParserCtxt(const char *buffer, int size) {
    REAL(xmlCreateMemoryParserCtxt)
    return xmlCreateMemoryParserCtxt_found(buffer, size);
}

FORWARD int xmlCtxtUseOptions(xmlParserCtxtPtr context, int options) {
    REAL(xmlCtxtUseOptions)
    return xmlCtxtUseOptions_found(context, options);
}

FORWARD int xmlParseDocument(xmlParserCtxtPtr context) {
    REAL(xmlParseDocument)
    return xmlParseDocument_found(context);
}

FORWARD void xmlFreeParserCtxt(xmlParserCtxtPtr context) {
    REAL(xmlFreeParserCtxt)
    xmlFreeParserCtxt_found(context);
}

FORWARD xmlDocPtr xmlCopyDoc(xmlDocPtr document, int recursive) {
    REAL(xmlCopyDoc)
    return xmlCopyDoc_found(document, recursive);
}

FORWARD void xmlFreeDoc(xmlDocPtr document) {
    REAL(xmlFreeDoc)
    xmlFreeDoc_found(document);
}

FORWARD xmlNodePtr xmlDocGetRootElement(const xmlDoc *document) {
    REAL(xmlDocGetRootElement)
    return xmlDocGetRootElement_found(document);
}

FORWARD long xmlGetLineNo(const xmlNode *node) {
    REAL(xmlGetLineNo)
    return xmlGetLineNo_found(node);
}

FORWARD xmlChar *xmlNodeListGetString(xmlDocPtr document, const xmlNode *list, int inLine) {
    REAL(xmlNodeListGetString)
    return xmlNodeListGetString_found(document, list, inLine);
}

// void in libxml2 2.9, int from 2.11: the header's own return type.
FORWARD __typeof__(xmlSchemaInitTypes()) xmlSchemaInitTypes(void) {
    REAL(xmlSchemaInitTypes)
    return xmlSchemaInitTypes_found();
}

FORWARD xmlSchemaParserCtxtPtr xmlSchemaNewDocParserCtxt(xmlDocPtr document) {
    REAL(xmlSchemaNewDocParserCtxt)
    return xmlSchemaNewDocParserCtxt_found(document);
}

FORWARD void xmlSchemaSetParserStructuredErrors(xmlSchemaParserCtxtPtr context, xmlStructuredErrorFunc handler,
                                                void *handlerContext) {
    REAL(xmlSchemaSetParserStructuredErrors)
    xmlSchemaSetParserStructuredErrors_found(context, handler, handlerContext);
}

FORWARD xmlSchemaPtr xmlSchemaParse(xmlSchemaParserCtxtPtr context) {
    REAL(xmlSchemaParse)
    return xmlSchemaParse_found(context);
}

FORWARD void xmlSchemaFreeParserCtxt(xmlSchemaParserCtxtPtr context) {
    REAL(xmlSchemaFreeParserCtxt)
    xmlSchemaFreeParserCtxt_found(context);
}

FORWARD void xmlSchemaFree(xmlSchemaPtr schema) {
    REAL(xmlSchemaFree)
    xmlSchemaFree_found(schema);
}

FORWARD xmlSchemaValidCtxtPtr xmlSchemaNewValidCtxt(xmlSchemaPtr schema) {
    REAL(xmlSchemaNewValidCtxt)
    return xmlSchemaNewValidCtxt_found(schema);
}

FORWARD void xmlSchemaSetValidStructuredErrors(xmlSchemaValidCtxtPtr context, xmlStructuredErrorFunc handler,
                                               void *handlerContext) {
    REAL(xmlSchemaSetValidStructuredErrors)
    xmlSchemaSetValidStructuredErrors_found(context, handler, handlerContext);
}

FORWARD int xmlSchemaValidateDoc(xmlSchemaValidCtxtPtr context, xmlDocPtr document) {
    REAL(xmlSchemaValidateDoc)
    return xmlSchemaValidateDoc_found(context, document);
}

FORWARD void xmlSchemaFreeValidCtxt(xmlSchemaValidCtxtPtr context) {
    REAL(xmlSchemaFreeValidCtxt)
    xmlSchemaFreeValidCtxt_found(context);
}

#else

int tether_libxml2_is_loaded(void) { return 1; }

#endif
