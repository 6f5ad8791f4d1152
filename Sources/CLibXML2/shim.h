#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <libxml/xmlerror.h>

/* `xmlFree` is a macro over a thread-local function pointer in threaded builds; Swift cannot call macros. */
static inline void pier_xml_free(void *pointer) {
    xmlFree(pointer);
}
