/*
 * The derived-metric expression language of pmRegisterDerived(3), as a bison
 * grammar. It is not compiled into anything: scripts/gen-parser-tables.py runs
 * bison on it and writes the LALR(1) tables to tables.rs, which parse.rs drives.
 * The productions, the precedences and the `error` alternatives are libpcp's
 * language (its error alternatives decide which message a bad expression gets);
 * each rule's `A:` marker names what parse.rs does when the rule is reduced.
 */

%token L_UNDEF L_ERROR L_EOS
%token L_PLUS L_MINUS L_STAR L_SLASH L_QUEST L_COLON L_LPAREN L_RPAREN
%token L_AVG L_COUNT L_DELTA L_MAX L_MIN L_SUM L_ANON L_RATE L_INSTANT
%token L_LT L_LEQ L_EQ L_GEQ L_GT L_NEQ L_AND L_OR
%token L_MKCONST L_RESCALE L_DEFINED L_MATCHINST L_SCALAR
%token L_TYPE L_SEMANTICS L_UNITS L_ASSIGN L_COMMA
%token EVENT_UNIT TIME_UNIT SPACE_UNIT
%token L_INTEGER L_DOUBLE L_NAME L_STRING L_INSTNAME L_PATTERN

%left  L_QUEST L_COLON
%left  L_AND L_OR
%left  L_NOT
%left  L_LT L_LEQ L_EQ L_GEQ L_GT L_NEQ
%left  L_PLUS L_MINUS
%left  L_STAR L_SLASH

%expect 0
%start defn

%%

defn : expr L_EOS                      { /* A:Accept */ }
     | expr L_PLUS error               { /* A:Trailing(+) */ }
     | expr L_STAR error               { /* A:Trailing(*) */ }
     | expr L_SLASH error              { /* A:Trailing(/) */ }
     | expr L_LPAREN error             { /* A:Trailing(() */ }
     | expr L_RPAREN error             { /* A:Trailing()) */ }
     | expr L_LT error                 { /* A:Trailing(<) */ }
     | expr L_LEQ error                { /* A:Trailing(<=) */ }
     | expr L_EQ error                 { /* A:Trailing(==) */ }
     | expr L_GEQ error                { /* A:Trailing(>=) */ }
     | expr L_GT error                 { /* A:Trailing(>) */ }
     | expr L_NEQ error                { /* A:Trailing(!=) */ }
     | expr L_AND error                { /* A:Trailing(&&) */ }
     | expr L_OR error                 { /* A:Trailing(||) */ }
     | L_PLUS error                    { /* A:Initial(+) */ }
     | L_STAR error                    { /* A:Initial(*) */ }
     | L_SLASH error                   { /* A:Initial(/) */ }
     | L_LPAREN error                  { /* A:Initial(() */ }
     | L_RPAREN error                  { /* A:Initial()) */ }
     | L_LT error                      { /* A:Initial(<) */ }
     | L_LEQ error                     { /* A:Initial(<=) */ }
     | L_EQ error                      { /* A:Initial(==) */ }
     | L_GEQ error                     { /* A:Initial(>=) */ }
     | L_GT error                      { /* A:Initial(>) */ }
     | L_NEQ error                     { /* A:Initial(!=) */ }
     | L_AND error                     { /* A:Initial(&&) */ }
     | L_OR error                      { /* A:Initial(||) */ }
     | L_QUEST error                   { /* A:Initial(?) */ }
     | L_COLON error                   { /* A:Initial(:) */ }
     ;

expr : L_LPAREN expr L_RPAREN          { /* A:Paren */ }
     | L_NAME L_INSTNAME               { /* A:NameInst */ }
     | L_LPAREN expr L_RPAREN L_INSTNAME { /* A:ParenInst */ }
     | num                             { /* A:Pass */ }
     | L_NAME                          { /* A:Name */ }
     | func                            { /* A:Pass */ }
     | expr L_PLUS expr                { /* A:Binary(Plus) */ }
     | expr L_MINUS expr               { /* A:Binary(Minus) */ }
     | expr L_STAR expr                { /* A:Binary(Star) */ }
     | expr L_SLASH expr               { /* A:Binary(Slash) */ }
     | L_MINUS expr %prec L_MINUS      { /* A:Neg */ }
     | expr L_LT expr                  { /* A:Binary(Lt) */ }
     | expr L_LEQ expr                 { /* A:Binary(Leq) */ }
     | expr L_EQ expr                  { /* A:Binary(Eq) */ }
     | expr L_GEQ expr                 { /* A:Binary(Geq) */ }
     | expr L_GT expr                  { /* A:Binary(Gt) */ }
     | expr L_NEQ expr                 { /* A:Binary(Neq) */ }
     | expr L_QUEST expr L_COLON expr  { /* A:Ternary */ }
     | expr L_AND expr                 { /* A:Binary(And) */ }
     | expr L_OR expr                  { /* A:Binary(Or) */ }
     | L_NOT expr                      { /* A:Not */ }
     | L_NAME error                    { /* A:Expected(op,NAME) */ }
     | expr L_PLUS error               { /* A:Expected(arith,PLUS) */ }
     | expr L_MINUS error              { /* A:Expected(arith,MINUS) */ }
     | expr L_STAR error               { /* A:Expected(arith,STAR) */ }
     | expr L_SLASH error              { /* A:Expected(arith,SLASH) */ }
     | L_MINUS error                   { /* A:Expected(arith,NEG) */ }
     | expr L_LT error                 { /* A:Expected(arith,LT) */ }
     | expr L_LEQ error                { /* A:Expected(arith,LEQ) */ }
     | expr L_EQ error                 { /* A:Expected(arith,EQ) */ }
     | expr L_GEQ error                { /* A:Expected(arith,GEQ) */ }
     | expr L_GT error                 { /* A:Expected(arith,GT) */ }
     | expr L_NEQ error                { /* A:Expected(arith,NEQ) */ }
     | expr L_AND error                { /* A:Expected(bool,AND) */ }
     | expr L_OR error                 { /* A:Expected(bool,OR) */ }
     | L_NOT error                     { /* A:Expected(bool,NOT) */ }
     | expr L_QUEST error              { /* A:Expected(arith,QUEST) */ }
     | expr L_QUEST expr L_COLON error { /* A:Expected(arith,COLON) */ }
     ;

regexpr : opt_bang L_PATTERN           { /* A:Pattern */ }

opt_bang : L_NOT                       { /* A:Bang */ }
         |                             { /* A:NoBang */ }

num : L_INTEGER                        { /* A:Integer */ }
    | L_DOUBLE                         { /* A:Double */ }
    | L_MKCONST L_LPAREN L_INTEGER L_COMMA { /* A:ConstInteger */ } speclist L_RPAREN { /* A:ConstEnd */ }
    | L_MKCONST L_LPAREN L_DOUBLE L_COMMA { /* A:ConstDouble */ } speclist L_RPAREN { /* A:ConstDoubleEnd */ }
    ;

speclist : speclist L_COMMA spec       { /* A:Pass */ }
         | spec                        { /* A:Pass */ }
         ;

spec : L_TYPE L_ASSIGN specval         { /* A:SpecType */ }
     | L_SEMANTICS L_ASSIGN specval    { /* A:SpecSemantics */ }
     | L_UNITS L_ASSIGN specval        { /* A:SpecUnits */ }
     ;

specval : L_STRING                     { /* A:Pass */ }
        | L_NAME                       { /* A:Pass */ }
        | L_INTEGER                    { /* A:Pass */ }
        ;

func : L_ANON L_LPAREN L_NAME L_RPAREN     { /* A:Anon */ }
     | L_AVG L_LPAREN L_NAME L_RPAREN      { /* A:Func(Avg) */ }
     | L_COUNT L_LPAREN L_NAME L_RPAREN    { /* A:Func(Count) */ }
     | L_DELTA L_LPAREN L_NAME L_RPAREN    { /* A:Func(Delta) */ }
     | L_MAX L_LPAREN L_NAME L_RPAREN      { /* A:Func(Max) */ }
     | L_MIN L_LPAREN L_NAME L_RPAREN      { /* A:Func(Min) */ }
     | L_SUM L_LPAREN L_NAME L_RPAREN      { /* A:Func(Sum) */ }
     | L_RATE L_LPAREN L_NAME L_RPAREN     { /* A:Func(Rate) */ }
     | L_INSTANT L_LPAREN L_NAME L_RPAREN  { /* A:Func(Instant) */ }
     | L_DEFINED L_LPAREN L_NAME L_RPAREN  { /* A:Func(Defined) */ }
     | L_RESCALE L_LPAREN expr L_COMMA L_STRING L_RPAREN { /* A:Rescale */ }
     | L_MATCHINST L_LPAREN regexpr L_COMMA expr L_RPAREN { /* A:MatchInst */ }
     | L_SCALAR L_LPAREN expr L_RPAREN     { /* A:Scalar */ }
     | L_ANON L_LPAREN error               { /* A:Expected(name,anon() */ }
     | L_AVG L_LPAREN error                { /* A:Expected(name,avg() */ }
     | L_COUNT L_LPAREN error              { /* A:Expected(name,count() */ }
     | L_DELTA L_LPAREN error              { /* A:Expected(name,delta() */ }
     | L_MAX L_LPAREN error                { /* A:Expected(name,max() */ }
     | L_MIN L_LPAREN error                { /* A:Expected(name,min() */ }
     | L_SUM L_LPAREN error                { /* A:Expected(name,sum() */ }
     | L_RATE L_LPAREN error               { /* A:Expected(name,rate() */ }
     | L_INSTANT L_LPAREN error            { /* A:Expected(name,instant() */ }
     | L_RESCALE L_LPAREN error            { /* A:Expected(op,rescale() */ }
     | L_RESCALE L_LPAREN expr L_COMMA error { /* A:Expected(units,rescale(<expr>,) */ }
     | L_MATCHINST L_LPAREN error          { /* A:Expected(filter,matchinst() */ }
     | L_MATCHINST L_LPAREN regexpr error  { /* A:Expected(comma,matchinst(<filter>) */ }
     | L_MATCHINST L_LPAREN regexpr L_COMMA error { /* A:Expected(expr,matchinst(<filter>,) */ }
     | L_SCALAR L_LPAREN error             { /* A:Expected(scalar,scalar() */ }
     ;
