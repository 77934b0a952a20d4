/*
 * pmlogrewrite's rewriting rules (the language of pmlogrewrite(1)'s REWRITING
 * RULES SYNTAX), as a bison grammar. It is not compiled into anything:
 * scripts/gen-parser-tables.py runs bison on it and writes the LALR(1) tables to
 * tables.rs, which parse.rs drives. The productions are PCP 6.0.3's language,
 * the incomplete clauses included (they decide which message a clause cut short
 * gets), and so are the places of the actions inside a rule (they decide when
 * the lexer has read ahead, and so the line a message names); each rule's `A:`
 * marker names what parse.rs does when the rule is reduced (a `.begin` marker: a
 * clause's header, done before its body is read).
 */

%token T_LBRACE T_RBRACE T_PLUS T_MINUS T_COLON T_COMMA T_LPAREN T_RPAREN
%token T_ASSIGN T_GLOBAL T_INDOM T_DUPLICATE T_METRIC T_HOSTNAME T_TIMEZONE T_ZONEINFO
%token T_FEATURES T_TIME T_NAME T_INST T_INAME T_DELETE T_PMID T_NULL_INT
%token T_TYPE T_IF T_SEM T_UNITS T_OUTPUT T_RESCALE T_TEXT T_ONELINE
%token T_HELP T_TEXT_STAR T_LABEL T_CONTEXT T_LABEL_STAR T_DOMAIN T_CLUSTER T_ITEM
%token T_INSTANCES T_INSTANCE T_NEW T_VALUE T_BITS T_GNAME T_NUMBER T_STRING
%token T_TEXT_STRING T_HNAME T_FLOAT T_JSON_STRING T_JSON_NUMBER T_JSON_TRUE T_JSON_FALSE T_JSON_NULL
%token T_INDOM_STAR T_PMID_INT T_PMID_STAR T_TYPE_NAME T_SEM_NAME T_SPACE_NAME T_TIME_NAME T_COUNT_NAME
%token T_OUTPUT_TYPE

%start config

%%

config
    : speclist { /* A:config:speclist */ }
    ;
speclist
    : spec { /* A:speclist:spec */ }
    | spec speclist { /* A:speclist:spec_speclist */ }
    ;
spec
    : globalspec { /* A:spec:globalspec */ }
    | indomspec { /* A:spec:indomspec */ }
    | metricspec { /* A:spec:metricspec */ }
    | textspec { /* A:spec:textspec */ }
    | labelspec { /* A:spec:labelspec */ }
    ;
globalspec
    : T_GLOBAL T_LBRACE globaloptlist T_RBRACE { /* A:globalspec:global_lbrace_globaloptlist_rbrace */ }
    | T_GLOBAL T_LBRACE T_RBRACE { /* A:globalspec:global_lbrace_rbrace */ }
    ;
globaloptlist
    : globalopt { /* A:globaloptlist:globalopt */ }
    | globalopt globaloptlist { /* A:globaloptlist:globalopt_globaloptlist */ }
    ;
globalopt
    : T_HOSTNAME T_ASSIGN hname { /* A:globalopt:hostname_assign_hname */ }
    | T_TIMEZONE T_ASSIGN T_STRING { /* A:globalopt:timezone_assign_string */ }
    | T_ZONEINFO T_ASSIGN T_STRING { /* A:globalopt:zoneinfo_assign_string */ }
    | T_FEATURES T_ASSIGN feature_bits { /* A:globalopt:features_assign_feature_bits */ }
    | T_TIME T_ASSIGN signtime { /* A:globalopt:time_assign_signtime */ }
    | T_HOSTNAME T_ASSIGN { /* A:globalopt:hostname_assign */ }
    | T_HOSTNAME { /* A:globalopt:hostname */ }
    | T_TIMEZONE T_ASSIGN { /* A:globalopt:timezone_assign */ }
    | T_TIMEZONE { /* A:globalopt:timezone */ }
    | T_ZONEINFO T_ASSIGN { /* A:globalopt:zoneinfo_assign */ }
    | T_ZONEINFO { /* A:globalopt:zoneinfo */ }
    | T_FEATURES T_ASSIGN { /* A:globalopt:features_assign */ }
    | T_FEATURES { /* A:globalopt:features */ }
    | T_TIME T_ASSIGN { /* A:globalopt:time_assign */ }
    | T_TIME { /* A:globalopt:time */ }
    ;
feature_bits
    : T_NUMBER { /* A:feature_bits:number */ }
    | T_BITS T_LPAREN bits_list T_RPAREN { /* A:feature_bits:bits_lparen_bits_list_rparen */ }
    | T_BITS T_LPAREN bits_list { /* A:feature_bits:bits_lparen_bits_list */ }
    | T_BITS T_LPAREN { /* A:feature_bits:bits_lparen */ }
    | T_BITS { /* A:feature_bits:bits */ }
    ;
bits_list
    : T_NUMBER { /* A:bits_list:number */ }
    | bits_list T_COMMA T_NUMBER { /* A:bits_list:bits_list_comma_number */ }
    ;
hname
    : T_HNAME { /* A:hname:hname */ }
    | T_GNAME { /* A:hname:gname */ }
    | T_NUMBER { /* A:hname:number */ }
    | T_FLOAT { /* A:hname:float */ }
    ;
signnumber
    : T_PLUS T_NUMBER { /* A:signnumber:plus_number */ }
    | T_MINUS T_NUMBER { /* A:signnumber:minus_number */ }
    | T_NUMBER { /* A:signnumber:number */ }
    ;
number
    : T_NUMBER { /* A:number:number */ }
    ;
float
    : T_FLOAT { /* A:float:float */ }
    ;
signtime
    : T_PLUS time { /* A:signtime:plus_time */ }
    | T_MINUS time { /* A:signtime:minus_time */ }
    | time { /* A:signtime:time */ }
    ;
time
    : number T_COLON number T_COLON float { /* A:time:number_colon_number_colon_float */ }
    | number T_COLON number T_COLON number { /* A:time:number_colon_number_colon_number */ }
    | number T_COLON float { /* A:time:number_colon_float */ }
    | number T_COLON number { /* A:time:number_colon_number */ }
    | float { /* A:time:float */ }
    | number { /* A:time:number */ }
    ;
indomspec
    : T_INDOM indom_int { /* A:indomspec.begin */ } T_LBRACE optindomopt T_RBRACE { /* A:indomspec:indom_indom_int_lbrace_optindomopt_rbrace */ }
    | T_INDOM { /* A:indomspec:indom */ }
    ;
indom_int
    : T_FLOAT { /* A:indom_int:float */ }
    | T_INDOM_STAR { /* A:indom_int:indom_star */ }
    ;
optindomopt
    : indomoptlist { /* A:optindomopt:indomoptlist */ }
    | %empty { /* A:optindomopt:empty */ }
    ;
indomoptlist
    : indomopt { /* A:indomoptlist:indomopt */ }
    | indomopt indomoptlist { /* A:indomoptlist:indomopt_indomoptlist */ }
    ;
indomopt
    : T_INDOM T_ASSIGN duplicateopt indom_int { /* A:indomopt:indom_assign_duplicateopt_indom_int */ }
    | T_INAME T_STRING T_ASSIGN T_STRING { /* A:indomopt:iname_string_assign_string */ }
    | T_INAME T_STRING T_ASSIGN T_DELETE { /* A:indomopt:iname_string_assign_delete */ }
    | T_INST number T_ASSIGN number { /* A:indomopt:inst_number_assign_number */ }
    | T_INST number T_ASSIGN T_DELETE { /* A:indomopt:inst_number_assign_delete */ }
    | T_INDOM T_ASSIGN { /* A:indomopt:indom_assign */ }
    | T_INDOM { /* A:indomopt:indom */ }
    | T_INAME T_STRING T_ASSIGN { /* A:indomopt:iname_string_assign */ }
    | T_INAME T_STRING { /* A:indomopt:iname_string */ }
    | T_INAME { /* A:indomopt:iname */ }
    | T_INST number T_ASSIGN { /* A:indomopt:inst_number_assign */ }
    | T_INST number { /* A:indomopt:inst_number */ }
    | T_INST { /* A:indomopt:inst */ }
    ;
duplicateopt
    : T_DUPLICATE { /* A:duplicateopt:duplicate */ }
    | %empty { /* A:duplicateopt:empty */ }
    ;
metricspec
    : T_METRIC pmid_or_name { /* A:metricspec.begin */ } T_LBRACE optmetricoptlist T_RBRACE { /* A:metricspec:metric_pmid_or_name_lbrace_optmetricoptlist_rbrace */ }
    | T_METRIC { /* A:metricspec:metric */ }
    ;
pmid_or_name
    : pmid_int { /* A:pmid_or_name:pmid_int */ }
    | T_GNAME { /* A:pmid_or_name:gname */ }
    ;
pmid_int
    : T_PMID_INT { /* A:pmid_int:pmid_int */ }
    | T_PMID_STAR { /* A:pmid_int:pmid_star */ }
    ;
optmetricoptlist
    : metricoptlist { /* A:optmetricoptlist:metricoptlist */ }
    | %empty { /* A:optmetricoptlist:empty */ }
    ;
metricoptlist
    : metricopt { /* A:metricoptlist:metricopt */ }
    | metricopt metricoptlist { /* A:metricoptlist:metricopt_metricoptlist */ }
    ;
metricopt
    : T_PMID T_ASSIGN pmid_int { /* A:metricopt:pmid_assign_pmid_int */ }
    | T_NAME T_ASSIGN T_GNAME { /* A:metricopt:name_assign_gname */ }
    | T_TYPE T_ASSIGN T_TYPE_NAME { /* A:metricopt:type_assign_type_name */ }
    | T_TYPE T_IF T_TYPE_NAME T_ASSIGN T_TYPE_NAME { /* A:metricopt:type_if_type_name_assign_type_name */ }
    | T_INDOM T_ASSIGN null_or_indom pick { /* A:metricopt:indom_assign_null_or_indom_pick */ }
    | T_SEM T_ASSIGN T_SEM_NAME { /* A:metricopt:sem_assign_sem_name */ }
    | T_UNITS T_ASSIGN signnumber T_COMMA signnumber T_COMMA signnumber T_COMMA T_SPACE_NAME T_COMMA T_TIME_NAME T_COMMA T_COUNT_NAME rescaleopt { /* A:metricopt:units_assign_signnumber_comma_signnumber_comma_signnumber_comma_space_name_comma_time_name_comma_count_name_rescaleopt */ }
    | T_DELETE { /* A:metricopt:delete */ }
    | T_PMID T_ASSIGN { /* A:metricopt:pmid_assign */ }
    | T_NAME T_ASSIGN { /* A:metricopt:name_assign */ }
    | T_TYPE T_ASSIGN { /* A:metricopt:type_assign */ }
    | T_TYPE T_IF { /* A:metricopt:type_if */ }
    | T_TYPE T_IF T_TYPE_NAME T_ASSIGN { /* A:metricopt:type_if_type_name_assign */ }
    | T_INDOM T_ASSIGN { /* A:metricopt:indom_assign */ }
    | T_SEM T_ASSIGN { /* A:metricopt:sem_assign */ }
    | T_UNITS T_ASSIGN { /* A:metricopt:units_assign */ }
    | T_UNITS T_ASSIGN signnumber T_COMMA signnumber T_COMMA signnumber T_COMMA { /* A:metricopt:units_assign_signnumber_comma_signnumber_comma_signnumber_comma */ }
    | T_UNITS T_ASSIGN signnumber T_COMMA signnumber T_COMMA signnumber T_COMMA T_SPACE_NAME T_COMMA { /* A:metricopt:units_assign_signnumber_comma_signnumber_comma_signnumber_comma_space_name_comma */ }
    | T_UNITS T_ASSIGN signnumber T_COMMA signnumber T_COMMA signnumber T_COMMA T_SPACE_NAME T_COMMA T_TIME_NAME T_COMMA { /* A:metricopt:units_assign_signnumber_comma_signnumber_comma_signnumber_comma_space_name_comma_time_name_comma */ }
    ;
null_or_indom
    : indom_int { /* A:null_or_indom:indom_int */ }
    | T_NULL_INT { /* A:null_or_indom:null_int */ }
    ;
pick
    : T_OUTPUT T_INST number { /* A:pick:output_inst_number */ }
    | T_OUTPUT T_INAME T_STRING { /* A:pick:output_iname_string */ }
    | T_OUTPUT T_OUTPUT_TYPE { /* A:pick:output_output_type */ }
    | T_OUTPUT { /* A:pick:output */ }
    | %empty { /* A:pick:empty */ }
    ;
rescaleopt
    : T_RESCALE { /* A:rescaleopt:rescale */ }
    | %empty { /* A:rescaleopt:empty */ }
    ;
textspec
    : T_TEXT textmetricorindomspec { /* A:textspec:text_textmetricorindomspec */ }
    ;
textmetricorindomspec
    : textmetricspec { /* A:textmetricorindomspec:textmetricspec */ }
    | textindomspec { /* A:textmetricorindomspec:textindomspec */ }
    ;
textmetricspec
    : T_METRIC pmid_or_name opttexttypes opttextvalue { /* A:textmetricspec.begin */ } T_LBRACE opttextmetricoptlist T_RBRACE { /* A:textmetricspec:metric_pmid_or_name_opttexttypes_opttextvalue_lbrace_opttextmetricoptlist_rbrace */ }
    ;
opttexttypes
    : texttypes { /* A:opttexttypes:texttypes */ }
    | %empty { /* A:opttexttypes:empty */ }
    ;
texttypes
    : texttype { /* A:texttypes:texttype */ }
    | texttype texttypes { /* A:texttypes:texttype_texttypes */ }
    ;
texttype
    : T_TEXT_STAR { /* A:texttype:text_star */ }
    | T_HELP { /* A:texttype:help */ }
    | T_ONELINE { /* A:texttype:oneline */ }
    ;
opttextvalue
    : textstring { /* A:opttextvalue:textstring */ }
    | %empty { /* A:opttextvalue:empty */ }
    ;
opttextmetricoptlist
    : textmetricoptlist { /* A:opttextmetricoptlist:textmetricoptlist */ }
    | %empty { /* A:opttextmetricoptlist:empty */ }
    ;
textmetricoptlist
    : textmetricopt { /* A:textmetricoptlist:textmetricopt */ }
    | textmetricopt textmetricoptlist { /* A:textmetricoptlist:textmetricopt_textmetricoptlist */ }
    ;
textmetricopt
    : T_DELETE { /* A:textmetricopt:delete */ }
    | T_TEXT T_ASSIGN textstring { /* A:textmetricopt:text_assign_textstring */ }
    | T_METRIC T_ASSIGN pmid_int { /* A:textmetricopt:metric_assign_pmid_int */ }
    ;
textstring
    : T_STRING { /* A:textstring:string */ }
    | T_TEXT_STRING { /* A:textstring:text_string */ }
    ;
textindomspec
    : T_INDOM indom_int opttexttypes opttextvalue { /* A:textindomspec.begin */ } T_LBRACE opttextindomoptlist T_RBRACE { /* A:textindomspec:indom_indom_int_opttexttypes_opttextvalue_lbrace_opttextindomoptlist_rbrace */ }
    ;
opttextindomoptlist
    : textindomoptlist { /* A:opttextindomoptlist:textindomoptlist */ }
    | %empty { /* A:opttextindomoptlist:empty */ }
    ;
textindomoptlist
    : textindomopt { /* A:textindomoptlist:textindomopt */ }
    | textindomopt textindomoptlist { /* A:textindomoptlist:textindomopt_textindomoptlist */ }
    ;
textindomopt
    : T_DELETE { /* A:textindomopt:delete */ }
    | T_TEXT T_ASSIGN textstring { /* A:textindomopt:text_assign_textstring */ }
    | T_INDOM T_ASSIGN indom_int { /* A:textindomopt:indom_assign_indom_int */ }
    ;
labelspec
    : T_LABEL labelcontextormetricorindomspec { /* A:labelspec:label_labelcontextormetricorindomspec */ }
    ;
labelcontextormetricorindomspec
    : labelcontextspec { /* A:labelcontextormetricorindomspec:labelcontextspec */ }
    | labeldomainspec { /* A:labelcontextormetricorindomspec:labeldomainspec */ }
    | labelclusterspec { /* A:labelcontextormetricorindomspec:labelclusterspec */ }
    | labelitemspec { /* A:labelcontextormetricorindomspec:labelitemspec */ }
    | labelindomspec { /* A:labelcontextormetricorindomspec:labelindomspec */ }
    | labelinstancesspec { /* A:labelcontextormetricorindomspec:labelinstancesspec */ }
    ;
labelcontextspec
    : T_CONTEXT optlabeldetails { /* A:labelcontextspec.begin */ } T_LBRACE optlabelcontextoptlist T_RBRACE { /* A:labelcontextspec:context_optlabeldetails_lbrace_optlabelcontextoptlist_rbrace */ }
    ;
optlabeldetails
    : jsonname optlabelvalue { /* A:optlabeldetails:jsonname_optlabelvalue */ }
    | T_LABEL_STAR optlabelvalue { /* A:optlabeldetails:label_star_optlabelvalue */ }
    | %empty { /* A:optlabeldetails:empty */ }
    ;
jsonname
    : T_JSON_STRING { /* A:jsonname:json_string */ }
    | T_STRING { /* A:jsonname:string */ }
    ;
optlabelvalue
    : jsonvalue { /* A:optlabelvalue:jsonvalue */ }
    | T_LABEL_STAR { /* A:optlabelvalue:label_star */ }
    | %empty { /* A:optlabelvalue:empty */ }
    ;
jsonvalue
    : jsonname { /* A:jsonvalue:jsonname */ }
    | jsonnumber { /* A:jsonvalue:jsonnumber */ }
    | T_JSON_TRUE { /* A:jsonvalue:json_true */ }
    | T_JSON_FALSE { /* A:jsonvalue:json_false */ }
    | T_JSON_NULL { /* A:jsonvalue:json_null */ }
    ;
jsonnumber
    : T_MINUS T_NUMBER { /* A:jsonnumber:minus_number */ }
    | T_NUMBER { /* A:jsonnumber:number */ }
    | T_MINUS T_JSON_NUMBER { /* A:jsonnumber:minus_json_number */ }
    | T_JSON_NUMBER { /* A:jsonnumber:json_number */ }
    ;
optlabelcontextoptlist
    : labelcontextoptlist { /* A:optlabelcontextoptlist:labelcontextoptlist */ }
    | %empty { /* A:optlabelcontextoptlist:empty */ }
    ;
labelcontextoptlist
    : labelcontextopt { /* A:labelcontextoptlist:labelcontextopt */ }
    | labelcontextopt labelcontextoptlist { /* A:labelcontextoptlist:labelcontextopt_labelcontextoptlist */ }
    ;
labelcontextopt
    : T_DELETE { /* A:labelcontextopt:delete */ }
    | T_LABEL T_ASSIGN jsonname { /* A:labelcontextopt:label_assign_jsonname */ }
    | T_VALUE T_ASSIGN jsonvalue { /* A:labelcontextopt:value_assign_jsonvalue */ }
    | newlabelspec { /* A:labelcontextopt:newlabelspec */ }
    ;
newlabelspec
    : T_NEW jsonname jsonvalue { /* A:newlabelspec:new_jsonname_jsonvalue */ }
    ;
labeldomainspec
    : T_DOMAIN pmid_domain optlabeldetails { /* A:labeldomainspec.begin */ } T_LBRACE optlabeldomainoptlist T_RBRACE { /* A:labeldomainspec:domain_pmid_domain_optlabeldetails_lbrace_optlabeldomainoptlist_rbrace */ }
    ;
pmid_domain
    : T_NUMBER { /* A:pmid_domain:number */ }
    ;
optlabeldomainoptlist
    : labeldomainoptlist { /* A:optlabeldomainoptlist:labeldomainoptlist */ }
    | %empty { /* A:optlabeldomainoptlist:empty */ }
    ;
labeldomainoptlist
    : labeldomainopt { /* A:labeldomainoptlist:labeldomainopt */ }
    | labeldomainopt labeldomainoptlist { /* A:labeldomainoptlist:labeldomainopt_labeldomainoptlist */ }
    ;
labeldomainopt
    : T_DELETE { /* A:labeldomainopt:delete */ }
    | T_DOMAIN T_ASSIGN T_NUMBER { /* A:labeldomainopt:domain_assign_number */ }
    | T_LABEL T_ASSIGN jsonname { /* A:labeldomainopt:label_assign_jsonname */ }
    | T_VALUE T_ASSIGN jsonvalue { /* A:labeldomainopt:value_assign_jsonvalue */ }
    | newlabelspec { /* A:labeldomainopt:newlabelspec */ }
    ;
labelclusterspec
    : T_CLUSTER pmid_cluster optlabeldetails { /* A:labelclusterspec.begin */ } T_LBRACE optlabelclusteroptlist T_RBRACE { /* A:labelclusterspec:cluster_pmid_cluster_optlabeldetails_lbrace_optlabelclusteroptlist_rbrace */ }
    ;
pmid_cluster
    : T_FLOAT { /* A:pmid_cluster:float */ }
    | T_INDOM_STAR { /* A:pmid_cluster:indom_star */ }
    ;
optlabelclusteroptlist
    : labelclusteroptlist { /* A:optlabelclusteroptlist:labelclusteroptlist */ }
    | %empty { /* A:optlabelclusteroptlist:empty */ }
    ;
labelclusteroptlist
    : labelclusteropt { /* A:labelclusteroptlist:labelclusteropt */ }
    | labelclusteropt labelclusteroptlist { /* A:labelclusteroptlist:labelclusteropt_labelclusteroptlist */ }
    ;
labelclusteropt
    : T_DELETE { /* A:labelclusteropt:delete */ }
    | T_CLUSTER T_ASSIGN pmid_cluster { /* A:labelclusteropt:cluster_assign_pmid_cluster */ }
    | T_LABEL T_ASSIGN jsonname { /* A:labelclusteropt:label_assign_jsonname */ }
    | T_VALUE T_ASSIGN jsonvalue { /* A:labelclusteropt:value_assign_jsonvalue */ }
    | newlabelspec { /* A:labelclusteropt:newlabelspec */ }
    ;
labelitemspec
    : T_ITEM pmid_or_name optlabeldetails { /* A:labelitemspec.begin */ } T_LBRACE optlabelitemoptlist T_RBRACE { /* A:labelitemspec:item_pmid_or_name_optlabeldetails_lbrace_optlabelitemoptlist_rbrace */ }
    ;
optlabelitemoptlist
    : labelitemoptlist { /* A:optlabelitemoptlist:labelitemoptlist */ }
    | %empty { /* A:optlabelitemoptlist:empty */ }
    ;
labelitemoptlist
    : labelitemopt { /* A:labelitemoptlist:labelitemopt */ }
    | labelitemopt labelitemoptlist { /* A:labelitemoptlist:labelitemopt_labelitemoptlist */ }
    ;
labelitemopt
    : T_DELETE { /* A:labelitemopt:delete */ }
    | T_ITEM T_ASSIGN pmid_int { /* A:labelitemopt:item_assign_pmid_int */ }
    | T_LABEL T_ASSIGN jsonname { /* A:labelitemopt:label_assign_jsonname */ }
    | T_VALUE T_ASSIGN jsonvalue { /* A:labelitemopt:value_assign_jsonvalue */ }
    | newlabelspec { /* A:labelitemopt:newlabelspec */ }
    ;
labelindomspec
    : T_INDOM indom_int optlabeldetails { /* A:labelindomspec.begin */ } T_LBRACE optlabelindomoptlist T_RBRACE { /* A:labelindomspec:indom_indom_int_optlabeldetails_lbrace_optlabelindomoptlist_rbrace */ }
    ;
optlabelindomoptlist
    : labelindomoptlist { /* A:optlabelindomoptlist:labelindomoptlist */ }
    | %empty { /* A:optlabelindomoptlist:empty */ }
    ;
labelindomoptlist
    : labelindomopt { /* A:labelindomoptlist:labelindomopt */ }
    | labelindomopt labelindomoptlist { /* A:labelindomoptlist:labelindomopt_labelindomoptlist */ }
    ;
labelindomopt
    : T_DELETE { /* A:labelindomopt:delete */ }
    | T_INDOM T_ASSIGN indom_int { /* A:labelindomopt:indom_assign_indom_int */ }
    | T_LABEL T_ASSIGN jsonname { /* A:labelindomopt:label_assign_jsonname */ }
    | T_VALUE T_ASSIGN jsonvalue { /* A:labelindomopt:value_assign_jsonvalue */ }
    | newlabelspec { /* A:labelindomopt:newlabelspec */ }
    ;
labelinstancesspec
    : T_INSTANCES indom_int optinstancelabeldetails { /* A:labelinstancesspec.begin */ } T_LBRACE optlabelinstancesoptlist T_RBRACE { /* A:labelinstancesspec:instances_indom_int_optinstancelabeldetails_lbrace_optlabelinstancesoptlist_rbrace */ }
    ;
optinstancelabeldetails
    : T_STRING optlabeldetails { /* A:optinstancelabeldetails:string_optlabeldetails */ }
    | T_NUMBER optlabeldetails { /* A:optinstancelabeldetails:number_optlabeldetails */ }
    | T_LABEL_STAR optlabeldetails { /* A:optinstancelabeldetails:label_star_optlabeldetails */ }
    | %empty { /* A:optinstancelabeldetails:empty */ }
    ;
optlabelinstancesoptlist
    : labelinstancesoptlist { /* A:optlabelinstancesoptlist:labelinstancesoptlist */ }
    | %empty { /* A:optlabelinstancesoptlist:empty */ }
    ;
labelinstancesoptlist
    : labelinstancesopt { /* A:labelinstancesoptlist:labelinstancesopt */ }
    | labelinstancesopt labelinstancesoptlist { /* A:labelinstancesoptlist:labelinstancesopt_labelinstancesoptlist */ }
    ;
labelinstancesopt
    : T_DELETE { /* A:labelinstancesopt:delete */ }
    | T_INSTANCES T_ASSIGN indom_int { /* A:labelinstancesopt:instances_assign_indom_int */ }
    | T_INSTANCE T_ASSIGN T_NUMBER { /* A:labelinstancesopt:instance_assign_number */ }
    | T_LABEL T_ASSIGN jsonname { /* A:labelinstancesopt:label_assign_jsonname */ }
    | T_VALUE T_ASSIGN jsonvalue { /* A:labelinstancesopt:value_assign_jsonvalue */ }
    | newlabelspec { /* A:labelinstancesopt:newlabelspec */ }
    ;
