# The grammar of the native query language (docs/language.md), for nearley with the moo lexer in
# lexer.ts. Regenerate grammar.ts with `npm run grammar` (see the header of grammar.ts).
#
# Rules for keeping it fast and unambiguous (test/unit/query/grammar.test.ts checks one parse per query):
# - only %type tokens, never "literals": a string token whose text is "|" must not act as a pipe;
# - lists are left-recursive `Seq`s, never EBNF :* (its concat is quadratic);
# - postprocessors are O(1) (builders.ts); a stage is kept as its match (`b.stage`) and built by its
#   module in query/stages once the parse succeeded.

@preprocessor typescript
@{%
import { grammarLexer as lexer } from './lexer';
import * as b from './builders';
%}
@lexer lexer

query      -> stage                                      {% b.seqStart %}
            | query %pipe stage                          {% b.seqPush %}

stage      -> %st_from patterns                          {% b.stage %}
            | %st_search searchOr                        {% b.stage %}
            | %st_where expr                             {% b.stage %}
            | %st_extend assignments                     {% b.stage %}
            | %st_parse %ident %lparen field %rparen     {% b.stage %}
            | %st_parse %ident %lparen field %comma %string %rparen {% b.stage %}
            | %st_keep patterns                          {% b.stage %}
            | %st_drop patterns                          {% b.stage %}
            | %st_rename renames                         {% b.stage %}
            | %st_head                                   {% b.stage %}
            | %st_head count                             {% b.stage %}
            | %st_tail                                   {% b.stage %}
            | %st_tail count                             {% b.stage %}
            | %st_dedup fields                           {% b.stage %}
            | %st_stats aggregates                       {% b.stage %}
            | %st_stats aggregates %kw_by keys           {% b.stage %}
            | %st_stats %kw_by keys                      {% b.stage %}
            | %st_sort sortKeys                          {% b.stage %}
            | %st_sort %kw_by sortKeys                   {% b.stage %}
            | %st_top fields                             {% b.stage %}
            | %st_top fields %kw_by fields               {% b.stage %}
            | %st_top count fields                       {% b.stage %}
            | %st_top count fields %kw_by fields         {% b.stage %}
            | %st_unknown                                {% b.stage %}
            | %st_unknown anyTokens                      {% b.stage %}

# --- stage parts ---------------------------------------------------------------------------------

patterns   -> pattern                                    {% b.seqStart %}
            | patterns %comma pattern                    {% b.seqPush %}
pattern    -> %pattern                                   {% b.namePattern %}
            | %qident                                    {% b.namePattern %}

field      -> %ident                                     {% b.fieldName %}
            | %qident                                    {% b.fieldName %}
fields     -> field                                      {% b.seqStart %}
            | fields %comma field                        {% b.seqPush %}

assignments -> assignment                                {% b.seqStart %}
            | assignments %comma assignment              {% b.seqPush %}
assignment -> name %eq expr                              {% b.assignment %}
name       -> %ident                                     {% b.first %}
            | %qident                                    {% b.first %}

renames    -> renameItem                                 {% b.seqStart %}
            | renames %comma renameItem                  {% b.seqPush %}
renameItem -> name %kw_as name                           {% b.rename %}

count      -> %number                                    {% b.count %}
            | %minus %number                             {% b.count %}

aggregates -> aliased                                    {% b.seqStart %}
            | aggregates %comma aliased                  {% b.seqPush %}
keys       -> aliased                                    {% b.seqStart %}
            | keys %comma aliased                        {% b.seqPush %}
aliased    -> expr                                       {% b.aliased %}
            | expr %kw_as name                           {% b.aliased %}

sortKeys   -> sortKey                                    {% b.seqStart %}
            | sortKeys %comma sortKey                    {% b.seqPush %}
sortKey    -> expr                                       {% b.sortKey %}
            | expr %kw_asc                               {% b.sortKey %}
            | expr %kw_desc                              {% b.sortKey %}

# The body of an unknown or legacy stage: any tokens up to the next pipe.
anyTokens  -> anyToken                                   {% b.seqTokenStart %}
            | anyTokens anyToken                         {% b.seqTokenPush %}
anyToken   -> %ident {% b.first %} | %qident {% b.first %} | %string {% b.first %} | %number {% b.first %}
            | %duration {% b.first %} | %kw_and {% b.first %} | %kw_or {% b.first %} | %kw_not {% b.first %}
            | %kw_in {% b.first %} | %kw_like {% b.first %} | %kw_has {% b.first %} | %kw_is {% b.first %}
            | %kw_null {% b.first %} | %kw_true {% b.first %} | %kw_false {% b.first %} | %kw_as {% b.first %}
            | %kw_by {% b.first %} | %kw_asc {% b.first %} | %kw_desc {% b.first %} | %eqeq {% b.first %}
            | %match {% b.first %} | %neq {% b.first %} | %nmatch {% b.first %} | %lte {% b.first %}
            | %gte {% b.first %} | %eq {% b.first %} | %lt {% b.first %} | %gt {% b.first %} | %plus {% b.first %}
            | %minus {% b.first %} | %star {% b.first %} | %slash {% b.first %} | %percent {% b.first %}
            | %lparen {% b.first %} | %rparen {% b.first %} | %comma {% b.first %}

# --- search ----------------------------------------------------------------------------------------
# Precedence as in expressions: OR loosest, then AND (explicit or implied by juxtaposition), then NOT.

searchOr   -> searchOr %kw_or searchAnd                  {% b.searchLogical %}
            | searchAnd                                  {% id %}
searchAnd  -> searchAnd %kw_and searchNot                {% b.searchLogical %}
            | searchAnd searchNot                        {% b.searchLogical %}
            | searchNot                                  {% id %}
searchNot  -> %kw_not searchNot                          {% b.searchNot %}
            | searchAtom                                 {% id %}
searchAtom -> %term                                      {% b.searchToken %}
            | %string                                    {% b.searchToken %}
            | searchName searchOp searchValue            {% b.searchField %}
            | %lparen searchOr %rparen                   {% b.searchParen %}
searchName -> %term {% id %} | %qident {% id %}
searchOp   -> %eq {% id %} | %neq {% id %}
searchValue -> %term {% id %} | %string {% id %}

# --- expressions -----------------------------------------------------------------------------------
# Loosest first: or; and; not; comparison (non-associative); + -; * / %; unary -; primary.

expr       -> orExpr                                     {% id %}
orExpr     -> orExpr %kw_or andExpr                      {% b.logical %}
            | andExpr                                    {% id %}
andExpr    -> andExpr %kw_and notExpr                    {% b.logical %}
            | notExpr                                    {% id %}
notExpr    -> %kw_not notExpr                            {% b.not %}
            | cmpExpr                                    {% id %}
cmpExpr    -> addExpr                                    {% id %}
            | addExpr cmpOp addExpr                      {% b.binary %}
            | addExpr %kw_in %lparen exprList %rparen    {% b.inList %}
            | addExpr %kw_not %kw_in %lparen exprList %rparen {% b.inList %}
            | addExpr likeOp addExpr                     {% b.likeOrHas %}
            | addExpr %kw_not likeOp addExpr             {% b.likeOrHas %}
            | addExpr regexOp %string                    {% b.regexMatch %}
            | addExpr %kw_is %kw_null                    {% b.isNull %}
            | addExpr %kw_is %kw_not %kw_null            {% b.isNull %}
cmpOp      -> %eq {% id %} | %eqeq {% id %} | %neq {% id %} | %lt {% id %} | %lte {% id %} | %gt {% id %}
            | %gte {% id %}
likeOp     -> %kw_like {% id %} | %kw_has {% id %}
regexOp    -> %match {% id %} | %nmatch {% id %}
addExpr    -> addExpr addOp mulExpr                      {% b.binary %}
            | mulExpr                                    {% id %}
addOp      -> %plus {% id %} | %minus {% id %}
mulExpr    -> mulExpr mulOp unaryExpr                    {% b.binary %}
            | unaryExpr                                  {% id %}
mulOp      -> %star {% id %} | %slash {% id %} | %percent {% id %}
unaryExpr  -> %minus unaryExpr                           {% b.negate %}
            | primary                                    {% id %}
primary    -> %number {% b.literal %} | %string {% b.literal %} | %duration {% b.literal %}
            | %kw_true {% b.literal %} | %kw_false {% b.literal %} | %kw_null {% b.literal %}
            | %ident                                     {% b.fieldRef %}
            | %qident                                    {% b.fieldRef %}
            | %ident %lparen %rparen                     {% b.call %}
            | %ident %lparen exprList %rparen            {% b.call %}
            | %lparen expr %rparen                       {% b.paren %}
exprList   -> expr                                       {% b.seqStart %}
            | exprList %comma expr                       {% b.seqPush %}
