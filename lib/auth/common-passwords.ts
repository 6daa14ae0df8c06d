/**
 * The words most often found, alone or with digits and symbols around them, in published lists
 * of breached passwords (NIST SP 800-63B, 5.1.1.2: check against "passwords obtained from
 * previous breach corpuses" and "dictionary words"). Lower case, letters only: the policy strips
 * digits and symbols from the ends and undoes common letter substitutions before it looks here,
 * so "Password1234!" and "p@ssw0rd2024" are found as "password". Kept compact on purpose: a
 * long list in the repository costs more than it catches beyond these.
 */
export const COMMON_PASSWORD_WORDS: readonly string[] = `
password passwort passe contrasena senha parola wachtwoord haslo salasana lozinka motdepasse
qwerty qwertz azerty qwertyuiop asdfgh asdfghjkl zxcvbn zxcvbnm qazwsx qweasd qweasdzxc asdasd
letmein welcome iloveyou loveyou lovely loveme trustno trustnoone changeme secret secrets
admin administrator root toor superuser master login user guest default test tester testing
monkey dragon shadow sunshine princess football baseball basketball soccer hockey jordan
michael jennifer michelle jessica ashley charlie daniel matthew andrew joshua thomas robert
hunter ranger buster tigger batman superman spiderman starwars pokemon naruto minecraft
freedom whatever nothing access flower hello helloworld hottie lovers angel angels
summer winter spring autumn monday friday sunday january december
computer internet google yahoo facebook twitter linkedin microsoft apple samsung
cheese cookie chocolate banana orange pepper coffee bailey ginger maggie buddy
killer mustang harley corvette ferrari porsche mercedes yamaha
soccer chelsea liverpool arsenal barcelona madrid juventus
purple yellow silver golden diamond crystal
abcdef abcdefg abcdefgh abc abcd abcde qwe qwer asdf zxcv
passpass pass word adminadmin rootroot useruser
iloveu babygirl babyboy baby sweetie honey darling sexy lover
jesus christ god heaven blessed
secure security private temp temporary newpassword mypassword yourpassword
letmeinnow openup opensesame sesame
switchyard switch yard router routing
`
  .split(/\s+/)
  .filter(Boolean);
