mod cli_errors;
mod cli_files;
mod cli_profile;
mod cli_script;
mod cli_tools;
